{#- All attempts per sync and day: what the daily error rate divides by. -#}
{{ config(**sync_logs.sync_scoped_storage()) }}

with attempts as (
    select
        sync_id,
        cast(attempted_at as date) as attempted_on
    from {{ ref('int_sync_logs__attempts') }}
    where {{ sync_logs.in_changed_syncs() }}
)

select
    sync_id,
    attempted_on,
    count(*) as num_attempts
from attempts
group by sync_id, attempted_on
