"""`sync-logs` console entry point: a thin argparse dispatcher, one subcommand per tool.

Add a subcommand with a `_add_<name>(subparsers)` function that registers its parser and sets
`func`; `main()` stays as it is.

The commands users run on their warehouse (`export-csv`, `report`, `notify`) read it through
dbt: they need the `session` extra (or any dbt adapter, which brings dbt-core and PyYAML), and
`report` adds the `report` extra. The base install is the library that the Python models import
on a Spark cluster, with no dependency of its own. Each command imports its modules when it
runs, and a missing extra is an error naming it. The repository's own commands (`generate`, `demo`)
are `sync-logs-dev`'s (python/dev), not in the users' wheel.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

#: The third-party modules that only the extras install, with the distribution to name.
OPTIONAL_MODULES = {
    "altair": "altair",  # `report`
    "vl_convert": "vl-convert-python",  # `report`
    "dbt": "dbt-core",  # `session`
    "yaml": "pyyaml",  # `session`
}
#: The modules a command that reads the warehouse through dbt imports (`session`).
DBT_MODULES = ("yaml", "dbt.cli.main")


class MissingExtra(ImportError):
    """A command's optional dependency is not installed; the message names the extra."""


def require(command: str, extra: str, *modules: str) -> None:
    """Import `modules` (the command's optional dependencies and own modules); a missing
    optional dependency raises MissingExtra naming `extra`, the extra that installs it."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            missing = (exc.name or "").partition(".")[0]
            if missing not in OPTIONAL_MODULES:
                raise
            # any dbt adapter brings dbt-core and PyYAML: a Snowflake user needs no Spark
            hint = " (or your warehouse's dbt adapter beside it)" if extra == "session" else ""
            raise MissingExtra(
                f"`sync-logs {command}` needs {OPTIONAL_MODULES[missing]}, which is not "
                f"installed: install the package with its `{extra}` extra, e.g. "
                f"pip install 'sync-logs[{extra}]'{hint}"
            ) from exc


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    value = int(text.replace("_", ""))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


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
    p.add_argument("--sync-run-id", type=non_negative_int, default=None,
                   help="the run (default: the latest run with rejected or invalid records)")
    p.add_argument("--limit", type=positive_int, default=None,
                   help="at most this many records (default: var sync_logs_export_limit, 1000)")
    p.add_argument("--project-dir", default=None, help="dbt project (default: dbt's)")
    p.add_argument("--profiles-dir", default=None, help="dbt profiles folder (default: dbt's)")
    p.add_argument("--target", default=None, help="dbt target (default: the profile's)")
    p.add_argument("--target-path", default=None, help="dbt target path (default: dbt's)")
    p.add_argument("--vars", default=None, help="dbt vars, YAML, as for dbt --vars")
    p.set_defaults(func=_cmd_export_csv)


def _cmd_export_csv(args: argparse.Namespace) -> int:
    require("export-csv", "session", *DBT_MODULES)
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


def _add_dbt_flags(p) -> None:
    """Where dbt reads: the user's project, profile and target (dbt's defaults otherwise)."""
    p.add_argument("--project-dir", default=None, help="dbt project (default: dbt's)")
    p.add_argument("--profiles-dir", default=None, help="dbt profiles folder (default: dbt's)")
    p.add_argument("--target", default=None, help="dbt target (default: the profile's)")
    p.add_argument("--target-path", default=None, help="dbt target path (default: dbt's)")
    p.add_argument("--vars", default=None, help="dbt vars, YAML, as for dbt --vars")


def _warehouse(args: argparse.Namespace):
    from sync_logs.warehouse import Warehouse, dbt_common_args

    return Warehouse(dbt_common_args(args.project_dir, args.profiles_dir, args.target,
                                     args.target_path, args.vars))


def _add_report(subparsers) -> None:
    p = subparsers.add_parser(
        "report",
        help="write a self-contained HTML report of sync health from the marts",
        description="Read the sync_logs marts through your dbt project, profile and target "
        "(any warehouse dbt connects to) and write one HTML file that opens offline: "
        "overview, per sync, errors, audiences and a record lookup over a bounded sample.",
    )
    p.add_argument("--out", default="sync_logs_report.html",
                   help="HTML file to write (default sync_logs_report.html)")
    p.add_argument("--days", type=positive_int, default=90,
                   help="days of history charted, back from the latest run (default 90)")
    p.add_argument("--max-syncs", type=positive_int, default=50,
                   help="syncs in the per-sync charts, most recently run first (default 50)")
    p.add_argument("--max-models", type=positive_int, default=20,
                   help="models in the audience chart, most events first (default 20)")
    p.add_argument("--top-errors", type=positive_int, default=10,
                   help="messages charted over time (default 10)")
    p.add_argument("--sample-rows", type=positive_int, default=200,
                   help="rows in the record lookup sample (default 200)")
    p.add_argument("--sample-attempts", type=positive_int, default=10,
                   help="latest attempts kept per sampled row (default 10)")
    p.add_argument("--title", default="Sync health", help="the page's title")
    _add_dbt_flags(p)
    p.set_defaults(func=_cmd_report)


def _cmd_report(args: argparse.Namespace) -> int:
    require("report", "session", *DBT_MODULES)
    require("report", "report", "altair", "vl_convert")
    from sync_logs.report import ReportOptions, write_report

    options = ReportOptions(days=args.days, max_syncs=args.max_syncs,
                            max_models=args.max_models, top_errors=args.top_errors,
                            sample_rows=args.sample_rows, sample_attempts=args.sample_attempts,
                            title=args.title)
    result = write_report(Path(args.out), _warehouse(args), options)
    print(f"wrote {result.path} ({result.bytes / 1e6:.2f} MB, {result.queries} queries, "
          f"{result.seconds:.1f} s)")
    if result.failed_sections:
        print(f"sync-logs report: error: section(s) {', '.join(result.failed_sections)} could "
              "not be read (the page says why)", file=sys.stderr)
        return 1
    return 0


def _add_notify(subparsers) -> None:
    p = subparsers.add_parser(
        "notify",
        help="post new and resolved incidents to Slack, Microsoft Teams or a JSON webhook",
        description="Read sync_logs__incidents through your dbt project and target and post "
        "each new or resolved incident once per channel (state in the warehouse table "
        "sync_logs_notifications). The webhook URL comes from an environment variable "
        "(--webhook-url-env, default SYNC_LOGS_WEBHOOK_URL) or a file (--webhook-url-file), "
        "never from the command line, and is never printed.",
    )
    p.add_argument("--format", dest="fmt", choices=["slack", "teams", "json"], default="json",
                   help="message format: Slack incoming webhook, Microsoft Teams (Adaptive "
                   "Card), or generic JSON (default json)")
    p.add_argument("--webhook-url-env", default="SYNC_LOGS_WEBHOOK_URL",
                   help="environment variable holding the webhook URL "
                   "(default SYNC_LOGS_WEBHOOK_URL)")
    p.add_argument("--webhook-url-file", default=None,
                   help="file holding the webhook URL (instead of the environment variable)")
    p.add_argument("--channel", default=None,
                   help="name under which sent notifications are remembered (default: the "
                   "format); two webhooks of one format need two names")
    p.add_argument("--dry-run", action="store_true",
                   help="print the messages; post nothing, record nothing")
    p.add_argument("--baseline", action="store_true",
                   help="record every pending incident change as sent without posting "
                   "(first setup on a long history)")
    p.add_argument("--max-messages", type=positive_int, default=20,
                   help="at most this many posts per invocation, oldest first; the rest "
                   "wait for the next one (default 20)")
    p.add_argument("--min-interval", type=float, default=1.0,
                   help="seconds between two posts (default 1)")
    p.add_argument("--retries", type=non_negative_int, default=5,
                   help="retries of a post answered 429 or 5xx (default 5)")
    p.add_argument("--timeout", type=float, default=10.0,
                   help="seconds to wait for the webhook's answer (default 10)")
    p.add_argument("--report-url", default=None,
                   help="a link added to each message (e.g. the CI run with the report)")
    p.add_argument("--no-errors", action="store_true",
                   help="leave the sample failure reason out of the messages")
    p.add_argument("--state-schema", default=None,
                   help="schema of the state table (default: the incidents mart's schema)")
    p.add_argument("--state-table", default="sync_logs_notifications",
                   help="name of the state table (default sync_logs_notifications)")
    _add_dbt_flags(p)
    p.set_defaults(func=_cmd_notify)


def _cmd_notify(args: argparse.Namespace) -> int:
    require("notify", "session", *DBT_MODULES)
    from sync_logs.notify import NotifyOptions, notify, read_webhook_url

    options = NotifyOptions(
        fmt=args.fmt, channel=args.channel, url_env=args.webhook_url_env,
        url_file=Path(args.webhook_url_file) if args.webhook_url_file else None,
        dry_run=args.dry_run, baseline=args.baseline, max_messages=args.max_messages,
        retries=args.retries, min_interval_seconds=max(0.0, args.min_interval),
        timeout_seconds=args.timeout, include_errors=not args.no_errors,
        report_url=args.report_url, state_schema=args.state_schema,
        state_table=args.state_table)
    if not (args.dry_run or args.baseline):
        read_webhook_url(options)  # fail before reading the warehouse
    result = notify(_warehouse(args), options)
    return 1 if result.failed else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sync-logs", description="Tools around the sync_logs dbt package."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_export_csv(subparsers)
    _add_report(subparsers)
    _add_notify(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileExistsError, MissingExtra) as exc:
        # ValueError: WarehouseError, NotifyError too
        print(f"sync-logs {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
