"""carioca-conformance: the harness."""
