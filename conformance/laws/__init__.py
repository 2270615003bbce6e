"""The other judges: laws checked over seeded deals, the smoke test, hostile input.

:mod:`~conformance.laws.properties` plays seeded deals and checks the observable laws;
:mod:`~conformance.laws.hostile` sends malformed and hostile requests;
:mod:`~conformance.laws.smoke` is the quick first look at a new adapter, built on both.
"""
