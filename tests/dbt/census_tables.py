"""The columns of Census's Warehouse Writeback `sync_log` table, as the tests create it."""

CENSUS_SYNC_LOG = [
    ("log_id", "varchar"), ("sync_id", "bigint"), ("sync_run_id", "bigint"),
    ("record_identifier", "varchar"), ("record_payload", "varchar"),
    ("batch_started_at", "timestamp"), ("batch_completed_at", "timestamp"),
    ("operation", "varchar"), ("status", "varchar"), ("status_message", "varchar"),
    ("_census_logged_at", "timestamp"), ("destination_id", "bigint"),
    ("destination_object_id", "bigint"), ("source_id", "bigint"), ("source_object_id", "bigint"),
]
