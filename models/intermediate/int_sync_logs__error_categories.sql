{#- One row per distinct error message with its category: among the patterns of the seed
    `sync_logs_error_categories` (plus var `sync_logs_extra_error_categories`) that match it,
    ignoring case, the one with the lowest priority number; `other` when none matches.
    Messages are categorised once each, not once per attempt. -#}

with messages as (
    select distinct failed_reason
    from {{ ref('stg_sync_logs__sync_changelog') }}
    where failed_reason is not null
),

patterns as (
    select
        cast(pattern as {{ dbt.type_string() }}) as pattern,
        cast(category as {{ dbt.type_string() }}) as category,
        cast(priority as {{ dbt.type_int() }}) as priority
    from {{ ref('sync_logs_error_categories') }}
    {%- for extra in var('sync_logs_extra_error_categories', []) %}
    union all
    select
        cast('{{ dbt.escape_single_quotes(extra["pattern"]) }}' as {{ dbt.type_string() }}),
        cast('{{ dbt.escape_single_quotes(extra["category"]) }}' as {{ dbt.type_string() }}),
        cast({{ extra["priority"] | int }} as {{ dbt.type_int() }})
    {%- endfor %}
),

matches as (
    select
        messages.failed_reason,
        patterns.category,
        patterns.priority,
        patterns.pattern
    from messages
    inner join patterns
        on {{ sync_logs.regexp_matches('messages.failed_reason', 'patterns.pattern') }}
),

best_match as (
    {{ sync_logs.first_per_partition(
        'matches', 'failed_reason', 'priority, category, pattern', ['failed_reason', 'category']) }}
)

select
    messages.failed_reason,
    coalesce(best_match.category, 'other') as error_category
from messages
left join best_match
    on messages.failed_reason = best_match.failed_reason
