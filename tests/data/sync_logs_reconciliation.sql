-- A regression check of the package's code: with var sync_logs_all_data_tests.
{{ config(enabled=var('sync_logs_all_data_tests')) }}

-- Nothing lost, per run: raw records read (parquet footers of the loaded files) equal the
-- run's changelog rows plus the exact re-deliveries folded into them; and sync_runs'
-- num_redelivered equals the folded count. Returns the runs where either does not hold.
with changelog as (
    select
        sync_id,
        sync_run_id,
        count(*) as changelog_rows,
        sum(redelivery_count) as folded
    from {{ ref('sync_changelog') }}
    group by sync_id, sync_run_id
)

select
    runs.sync_id,
    runs.sync_run_id,
    runs.num_records,
    runs.num_redelivered,
    coalesce(changelog.changelog_rows, 0) as changelog_rows,
    coalesce(changelog.folded, 0) as folded
from {{ ref('sync_runs') }} as runs
left join changelog
    on runs.sync_id = changelog.sync_id and runs.sync_run_id = changelog.sync_run_id
where
    runs.num_records != coalesce(changelog.changelog_rows, 0) + coalesce(changelog.folded, 0)
    or runs.num_redelivered != coalesce(changelog.folded, 0)
