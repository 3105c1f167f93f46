{#- The snapshot's times of each (sync_id, row_id) of `attempts`, the same rule as `row_states`
    in sync_logs.canonical.snapshot (tests/data/snapshot_times.csv holds both to one table of
    cases). An attempt was sent when its batch started, else (unknown) when its run started;
    it succeeded when its batch finished, else when it was sent. `last_attempted_at`: when
    the newest attempt (`snapshot_newest_first`) was sent; `last_succeeded_at`: the latest
    success time of a succeeded attempt; `first_added_at`: the earliest of a succeeded
    `added` attempt. -#}
{% macro snapshot_row_times(attempts) -%}
    {%- set sent_at = 'coalesce(batch_started_at, run_started_at)' -%}
    {%- set succeeded_at = 'coalesce(batch_ended_at, batch_started_at, run_started_at)' -%}
    select
        sync_id,
        row_id,
        max(case when sync_logs_attempt_rank = 1 then {{ sent_at }} end) as last_attempted_at,
        max(case when status = 'succeeded' then {{ succeeded_at }} end) as last_succeeded_at,
        min(case when status = 'succeeded' and op_type = 'added' then {{ succeeded_at }} end) as first_added_at
    from (
        select
            sync_id,
            row_id,
            status,
            op_type,
            batch_started_at,
            batch_ended_at,
            run_started_at,
            sync_run_id,
            log_id,
            row_number() over (
                partition by sync_id, row_id order by {{ sync_logs.snapshot_newest_first() }}
            ) as sync_logs_attempt_rank
        from {{ attempts }}
    ) as sync_logs_ranked_attempts
    group by sync_id, row_id
{%- endmacro %}
