"""What every command of the command line shares: the usage error, the ``--adapter``
string, the catalogue, the corpus a command reads and the profile it names."""

from __future__ import annotations

import argparse
import sys

from conformance.adapter.command import AdapterCommandError, adapter_argv
from conformance.errors import HarnessError
from conformance.knowledge.catalogue import Catalogue, CatalogueError, load_catalogue
from conformance.run import selection
from conformance.run.selection import load_scenarios
from conformance.scenarios import IndexResult, LoadResult
from conformance.scenarios.corpus import default_catalogue_path

#: ``--profile all``: every profile of the harness (``run``: every one the engine lists).
ALL_PROFILES = "all"


class UsageError(HarnessError):
    """A user mistake: reported in one line, exit code 2."""


def parse_adapter(command: str | None) -> list[str]:
    """The argv of an ``--adapter`` string (:func:`conformance.adapter.command.adapter_argv`);
    a warning about shell operators goes to stderr, a bad string is a usage error."""
    try:
        argv, warning = adapter_argv(command)
    except AdapterCommandError as exc:
        raise UsageError(str(exc)) from None
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return argv


def catalogue_of(args: argparse.Namespace) -> Catalogue:
    """The rule catalogue a command reads (the hidden ``--catalogue``, else the default)."""
    try:
        # Inside a checkout its own catalogue, so a dispute just added is known (README).
        return load_catalogue(args.catalogue or default_catalogue_path())
    except CatalogueError as exc:
        raise UsageError(str(exc)) from None


def given(args: argparse.Namespace) -> tuple[list[str], str | None]:
    """The corpus paths and ``--corpus`` of a command."""
    return list(getattr(args, "paths", None) or []), getattr(args, "corpus", None)


def load(args: argparse.Namespace, catalogue: Catalogue) -> LoadResult:
    """The scenarios of the corpus a command names, decoded whole."""
    paths, corpus = given(args)
    return load_scenarios(paths, corpus, catalogue=catalogue)


def index(args: argparse.Namespace, catalogue: Catalogue) -> IndexResult:
    """The entries of the corpus a command names (an unchanged corpus is not decoded)."""
    paths, corpus = given(args)
    return selection.load_index(paths, corpus, catalogue=catalogue)


def corpus_label(args: argparse.Namespace) -> str:
    """Which corpus a command reads, for its header: the paths given, else the default."""
    paths, corpus = given(args)
    return selection.corpus_label(paths, corpus)


def handshake_default(args: argparse.Namespace, *, timeout: float, start_timeout: float) -> None:
    """Fill in ``args.profile`` when none was given: the one profile the engine's handshake
    lists (an engine that plays only Perla is graded on Perla), else the default profile.

    The adapter is started once to ask; one that cannot start leaves the default, and the
    command then reports why it cannot start. The reference (no ``--adapter``) lists every
    profile: it is not asked.
    """
    from conformance.errors import EngineError
    from conformance.jobs import engine_handshake, handshake_profile
    from conformance.knowledge.profiles import DEFAULT_PROFILE
    from conformance.run.runner import RunOptions

    if args.profile is not None:
        return
    args.profile = DEFAULT_PROFILE
    if args.adapter is None:
        return
    options = RunOptions(timeout=timeout, start_timeout=start_timeout)
    try:
        handshake = engine_handshake(parse_adapter(args.adapter), options)
    except EngineError:
        return
    args.profile = handshake_profile(handshake) or DEFAULT_PROFILE


def profile_name(args: argparse.Namespace) -> str:
    """The ``--profile`` of a command, refused (exit 2) when the harness has no data for it."""
    from conformance.knowledge.profiles import ProfileError, default_profiles

    profile: str = args.profile
    try:
        default_profiles()[profile]
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    return profile
