{#- Most common errors of each destination connection, ranked within it. A destination is its
    connection id where the source has one (Census, this package), else its type (Hightouch). -#}

with errors as (
    select
        destination_id,
        destination,
        destination_name,
        failed_reason,
        error_category,
        sync_id,
        row_key,
        attempted_at
    from {{ ref('int_sync_logs__error_attempts') }}
),

counted as (
    select
        destination_id,
        destination,
        max(destination_name) as destination_name,
        failed_reason,
        error_category,
        count(*) as num_attempts,
        count(distinct row_key) as num_rows,
        count(distinct sync_id) as num_syncs,
        min(attempted_at) as first_seen_at,
        max(attempted_at) as last_seen_at
    from errors
    group by destination_id, destination, failed_reason, error_category
)

select
    destination_id,
    destination,
    destination_name,
    failed_reason,
    error_category,
    num_attempts,
    num_rows,
    num_syncs,
    first_seen_at,
    last_seen_at,
    rank() over (partition by destination_id, destination order by num_attempts desc) as rank_by_attempts,
    rank() over (partition by destination_id, destination order by num_rows desc) as rank_by_rows
from counted
