{#- One row per distinct error message with its taxonomy (macro `error_taxonomy`): the
    coarse `error_category` of the seed `sync_logs_error_categories` (plus var
    `sync_logs_extra_error_categories`; `other` when none matches), the `error_class`, the
    HTTP status the message carries, whether it is retryable, and its template. The error
    rows carry each message's taxonomy, classified when their run was written: this is their
    distinct messages, with no pattern matched again. -#}

select distinct
    failed_reason,
    error_category,
    error_class,
    http_status,
    is_retryable,
    message_template
from {{ ref('int_sync_logs__error_rows') }}
