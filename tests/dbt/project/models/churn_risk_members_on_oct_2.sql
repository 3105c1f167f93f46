-- who was in the segment "Churn risk" on 2026-10-02 at noon
{{ sync_logs.members_at("'2026-10-02 12:00:00'", model_name='Churn risk') }}
