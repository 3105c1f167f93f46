{#- The package's error taxonomy over a table of real-world API error messages. -#}
{{ sync_logs.error_taxonomy('select message as failed_reason from ' ~ ref('error_taxonomy_cases')) }}
