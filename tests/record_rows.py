"""One row of the library's read records (`sync_logs.canonical.records.RECORD_COLUMNS`), for tests
that build the changelog's input by hand: a succeeded upsert of identifier `a` at row 0 of batch
`records_updated.0` of run 100 (sync 10), no times, no problem; keywords change any column."""

from sync_logs.canonical import records as record_reading

DEFAULTS = {
    "org_id": 1,
    "sync_id": 10,
    "sync_run_id": 100,
    "batch_file": "records_updated.0.parquet",
    "batch_type": "records_updated",
    "batch_number": 0,
    "row_index": 0,
    "identifier": "a",
    "record_payload": None,
    "operation": "upsert",
    "status": "succeeded",
    "status_message": None,
    "batch_started_at": None,
    "batch_ended_at": None,
    "payload_problem": None,
    "payload_truncated": False,
    "timestamp_problem": None,
    "manifest_version": 1,
}


def read_record(**columns) -> tuple:
    row = DEFAULTS | columns
    return tuple(row[c] for c in record_reading.RECORD_COLUMNS)
