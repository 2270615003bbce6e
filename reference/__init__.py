"""Reference rules engine for Argentine Carioca."""
