"""`sync-logs-dev` console entry point: the repository's own commands (`generate`, `demo`),
a thin argparse dispatcher like the users' `sync-logs`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from sync_logs.cli import non_negative_int, positive_int
from sync_logs_dev.checkout import CheckoutNotFound
from sync_logs_dev.generator_catalog import DEFAULT_START


def _add_generate(subparsers) -> None:
    p = subparsers.add_parser(
        "generate",
        help="write a demo lake of raw sync run outputs",
        description="Write realistic raw run outputs (sync_tracking_datasets/ and metadata/) "
        "under --out, deterministically for a seed.",
    )
    p.add_argument("--out", required=True, help="lake root to write into")
    p.add_argument("--syncs", type=positive_int, default=20, help="number of syncs (default 20)")
    p.add_argument("--runs-per-sync", type=positive_int, default=30,
                   help="runs of each sync (default 30)")
    p.add_argument("--records", type=non_negative_int, default=1_000_000,
                   help="raw records in all valid record files, exactly (default 1000000)")
    p.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    p.add_argument("--orgs", type=positive_int, default=None,
                   help="number of organizations (default min(3, syncs))")
    p.add_argument("--bad-inputs", action="store_true",
                   help="add every case of the contract's 'Bad input' list on top")
    p.add_argument("--incidents", action="store_true",
                   help="the demo's incident scenario: each kind of monitoring incident "
                   "(needs 6 syncs created before the facts refresh and 10 runs per sync)")
    p.add_argument("--manifest", default=None,
                   help="write a JSON description of the lake here (outside --out)")
    p.add_argument("--start", default=DEFAULT_START,
                   help=f"first run time, ISO-8601 (default {DEFAULT_START})")
    p.add_argument("--overwrite", action="store_true",
                   help="replace sync_tracking_datasets/ and metadata/ if --out has them")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=_cmd_generate)


def _cmd_generate(args: argparse.Namespace) -> int:
    from sync_logs_dev.generator import generate_lake

    summary = generate_lake(
        args.out,
        syncs=args.syncs,
        runs_per_sync=args.runs_per_sync,
        records=args.records,
        seed=args.seed,
        bad_inputs=args.bad_inputs,
        orgs=args.orgs,
        start=args.start,
        manifest_path=args.manifest,
        progress=not args.no_progress,
        overwrite=args.overwrite,
        incidents=args.incidents,
    )
    if args.json:
        print(json.dumps(summary.to_dict(), indent=2))
    else:
        print(
            f"wrote {summary.records:,} records ({summary.redelivered:,} re-delivered) in "
            f"{summary.runs:,} runs of {summary.syncs} syncs, {summary.files:,} record files, "
            f"{summary.bytes / 1e6:,.1f} MB, {summary.bad_items} bad items to {summary.out_dir} "
            f"in {summary.seconds:.1f}s"
        )
    return 0


def _add_demo(subparsers) -> None:
    p = subparsers.add_parser(
        "demo",
        help="generate a demo lake, dbt build everything on embedded Spark, print a summary",
        description="Write a demo lake with each kind of incident (unless it exists), run "
        "`dbt build` on the local target in this process, and print runs, top errors, rows "
        "added/removed per sync and the incidents.",
    )
    p.add_argument("--lake", default=None,
                   help="lake root (default target/demo_lake in the project folder)")
    p.add_argument("--project-dir", default=None,
                   help="the sync_logs checkout whose dbt project the demo builds (default: "
                   "the checkout this package runs from, or the current folder)")
    p.add_argument("--records", type=non_negative_int, default=200_000,
                   help="raw records of a newly generated lake (default 200000)")
    p.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    p.set_defaults(func=_cmd_demo)


def _cmd_demo(args: argparse.Namespace) -> int:
    from sync_logs_dev.demo import run_demo

    run_demo(Path(args.lake) if args.lake else None, records=args.records, seed=args.seed,
             project_dir=Path(args.project_dir) if args.project_dir else None)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sync-logs-dev", description="The sync_logs repository's own tools."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_generate(subparsers)
    _add_demo(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileExistsError, CheckoutNotFound) as exc:
        print(f"sync-logs-dev {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
