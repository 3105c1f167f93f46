{#- One row per distinct error message with its taxonomy (macro `error_taxonomy`): the
    coarse `error_category` of the seed `sync_logs_error_categories` (plus var
    `sync_logs_extra_error_categories`; `other` when none matches), the `error_class`, the
    HTTP status the message carries, whether it is retryable, and its template. Messages
    are classified once each, not once per attempt, from the per-run error aggregate. -#}

{{ sync_logs.error_taxonomy(
    'select failed_reason from ' ~ ref('int_sync_logs__error_rows')) }}
