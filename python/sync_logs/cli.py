"""`sync-logs` console entry point: a thin argparse dispatcher, one subcommand per tool.

Add a subcommand with a `_add_<name>(subparsers)` function that registers its parser and sets
`func`; `main()` stays as it is.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from sync_logs.generator import DEFAULT_START, generate_lake


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _non_negative(text: str) -> int:
    value = int(text.replace("_", ""))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _add_generate(subparsers) -> None:
    p = subparsers.add_parser(
        "generate",
        help="write a demo lake of raw sync run outputs",
        description="Write realistic raw run outputs (sync_tracking_datasets/ and metadata/) "
        "under --out, deterministically for a seed.",
    )
    p.add_argument("--out", required=True, help="lake root to write into")
    p.add_argument("--syncs", type=_positive, default=20, help="number of syncs (default 20)")
    p.add_argument("--runs-per-sync", type=_positive, default=30,
                   help="runs of each sync (default 30)")
    p.add_argument("--records", type=_non_negative, default=1_000_000,
                   help="raw records in all valid record files, exactly (default 1000000)")
    p.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    p.add_argument("--orgs", type=_positive, default=None,
                   help="number of organizations (default min(3, syncs))")
    p.add_argument("--bad-inputs", action="store_true",
                   help="add every case of the contract's 'Bad input' list on top")
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
        description="Write a demo lake (unless it exists), run `dbt build` on the local target "
        "in this process, and print runs, top errors and rows added/removed per sync.",
    )
    p.add_argument("--lake", default=None, help="lake root (default target/demo_lake)")
    p.add_argument("--records", type=_non_negative, default=200_000,
                   help="raw records of a newly generated lake (default 200000)")
    p.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    p.set_defaults(func=_cmd_demo)


def _cmd_demo(args: argparse.Namespace) -> int:
    from sync_logs.demo import DEMO_LAKE, run_demo

    run_demo(Path(args.lake) if args.lake else DEMO_LAKE, records=args.records, seed=args.seed)
    return 0


def _add_export_csv(subparsers) -> None:
    p = subparsers.add_parser(
        "export-csv",
        help="write a sample of one run's rejected or invalid records to a CSV file",
        description="Run the sync_logs analysis sync_logs_export_rejected_records with `dbt "
        "show` (in this process, in the dbt project that installs sync_logs) and write its "
        "rows, with a header, to --out. Works on every target the package supports.",
    )
    p.add_argument("--out", default="rejected_records.csv",
                   help="CSV file to write (default rejected_records.csv)")
    p.add_argument("--sync-run-id", type=_non_negative, default=None,
                   help="the run (default: the latest run with rejected or invalid records)")
    p.add_argument("--limit", type=_positive, default=None,
                   help="at most this many records (default: var sync_logs_export_limit, 1000)")
    p.add_argument("--project-dir", default=None, help="dbt project (default: dbt's)")
    p.add_argument("--profiles-dir", default=None, help="dbt profiles folder (default: dbt's)")
    p.add_argument("--target", default=None, help="dbt target (default: the profile's)")
    p.add_argument("--target-path", default=None, help="dbt target path (default: dbt's)")
    p.add_argument("--vars", default=None, help="dbt vars, YAML, as for dbt --vars")
    p.set_defaults(func=_cmd_export_csv)


def _cmd_export_csv(args: argparse.Namespace) -> int:
    from sync_logs.export_csv import export_rejected_records

    out = Path(args.out)
    count = export_rejected_records(
        out,
        sync_run_id=args.sync_run_id,
        limit=args.limit,
        project_dir=args.project_dir,
        profiles_dir=args.profiles_dir,
        target=args.target,
        target_path=args.target_path,
        user_vars=args.vars,
    )
    print(f"wrote {count:,} records to {out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sync-logs", description="Tools around the sync_logs dbt package."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_generate(subparsers)
    _add_demo(subparsers)
    _add_export_csv(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileExistsError) as exc:
        print(f"sync-logs {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
