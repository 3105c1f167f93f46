{#- The error taxonomy of a set of messages: `messages` is a query (SQL text) with a column
    `failed_reason`; the result has one row per distinct non-null message with its
    `error_category` (the coarse category of the seed's `category` column, `other` when no
    pattern with a category matches), `error_class` (`unknown` when no pattern with a class
    matches), `http_status`, `is_retryable` (null for `unknown`) and `message_template`.
    Patterns come from the seed `sync_logs_error_categories` plus var
    `sync_logs_extra_error_categories`; a message takes the category, and separately the
    class, of the matching pattern with the lowest priority number (ties: category or
    class name, then pattern). The var keeps its inline default: a model of the installing
    project may call this macro, and dbt resolves var() there in that project, which does not
    see the package's declaration. -#}
{% macro error_taxonomy(messages) %}
{%- set string = dbt.type_string() -%}
with sync_logs_messages as (
    select distinct failed_reason
    from ({{ messages }}) as sync_logs_message_source
    where failed_reason is not null
),

sync_logs_patterns as (
    select
        cast(pattern as {{ string }}) as pattern,
        cast(category as {{ string }}) as category,
        cast(priority as {{ dbt.type_int() }}) as priority,
        cast(error_class as {{ string }}) as error_class,
        cast(is_retryable as {{ dbt.type_boolean() }}) as is_retryable
    from {{ ref('sync_logs_error_categories') }}
    {%- for extra in var('sync_logs_extra_error_categories', []) %}
    union all
    select
        cast('{{ dbt.escape_single_quotes(extra["pattern"]) }}' as {{ string }}),
        cast({{ "'" ~ dbt.escape_single_quotes(extra["category"]) ~ "'" if extra.get("category") else "null" }} as {{ string }}),
        cast({{ extra["priority"] | int }} as {{ dbt.type_int() }}),
        cast({{ "'" ~ dbt.escape_single_quotes(extra["error_class"]) ~ "'" if extra.get("error_class") else "null" }} as {{ string }}),
        cast({{ "null" if extra.get("is_retryable") is none else ("true" if extra["is_retryable"] else "false") }} as {{ dbt.type_boolean() }})
    {%- endfor %}
),

sync_logs_matches as (
    select
        sync_logs_messages.failed_reason,
        sync_logs_patterns.pattern,
        sync_logs_patterns.category,
        sync_logs_patterns.priority,
        sync_logs_patterns.error_class,
        sync_logs_patterns.is_retryable
    from sync_logs_messages
    inner join sync_logs_patterns
        on {{ sync_logs.regexp_matches('sync_logs_messages.failed_reason', 'sync_logs_patterns.pattern') }}
),

sync_logs_category_matches as (
    select
        failed_reason,
        pattern,
        category,
        priority
    from sync_logs_matches
    where category is not null
),

sync_logs_class_matches as (
    select
        failed_reason,
        pattern,
        priority,
        error_class,
        is_retryable
    from sync_logs_matches
    where error_class is not null
),

sync_logs_best_category as (
    {{ sync_logs.first_per_partition(
        'sync_logs_category_matches', 'failed_reason', 'priority, category, pattern',
        ['failed_reason', 'category']) }}
),

sync_logs_best_class as (
    {{ sync_logs.first_per_partition(
        'sync_logs_class_matches', 'failed_reason', 'priority, error_class, pattern',
        ['failed_reason', 'error_class', 'is_retryable']) }}
)

select
    sync_logs_messages.failed_reason,
    coalesce(sync_logs_best_category.category, 'other') as error_category,
    coalesce(sync_logs_best_class.error_class, 'unknown') as error_class,
    {{ sync_logs.error_http_status('sync_logs_messages.failed_reason') }} as http_status,
    sync_logs_best_class.is_retryable,
    {{ sync_logs.error_message_template('sync_logs_messages.failed_reason') }} as message_template
from sync_logs_messages
left join sync_logs_best_category
    on sync_logs_messages.failed_reason = sync_logs_best_category.failed_reason
left join sync_logs_best_class
    on sync_logs_messages.failed_reason = sync_logs_best_class.failed_reason
{% endmacro %}
