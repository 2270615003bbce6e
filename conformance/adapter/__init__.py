"""Talking to an engine through the adapter protocol, and nothing else.

From the bottom up: the process plumbing (:mod:`~conformance.adapter.reaper`,
:mod:`~conformance.adapter.memlimit`, :mod:`~conformance.adapter.watchdog`,
:mod:`~conformance.adapter.pipes`, :mod:`~conformance.adapter.process`,
:mod:`~conformance.adapter.command`; an engine served in-process instead, for tests:
:mod:`~conformance.adapter.inprocess`), the protocol as data
(:mod:`~conformance.adapter.protocol`), the ``hello`` exchange
(:mod:`~conformance.adapter.handshake`), a session with one engine
(:mod:`~conformance.adapter.engine`) and what an engine declares it plays
(:mod:`~conformance.adapter.declarations`).
"""
