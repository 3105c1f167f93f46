"""Vocabularies of the demo lake generator: destinations, error texts, sync archetypes, pools.

Everything here is static data. Message templates hold at most one placeholder, one of
`{email}`, `{id}`, `{num}` or `{field}`, which the generator fills per record, vectorised.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The first run time of a generated lake (`sync-logs-dev generate --start`).
DEFAULT_START = "2026-10-01T00:00:00Z"

# --- destinations -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Destination:
    """A destination service: its `<Name>::Connection` type, error texts and throughput."""

    name: str  # the `<Destination>` part of `<Destination>::Connection`
    label: str  # how users name their connection
    records_per_second: float
    validates_email: bool
    rate_limit: str
    invalid_email: str | None
    not_found: str
    duplicate: str | None
    auth_error: str  # run-level error when credentials expire
    rejections: tuple[tuple[str, float], ...]  # (template, weight) for ordinary rejections

    @property
    def connection_type(self) -> str:
        return f"{self.name}::Connection"

    def object_type(self, obj: str) -> str:
        return f"{self.name}::ObjectTypes::{obj}"


DESTINATIONS: dict[str, Destination] = {
    d.name: d
    for d in (
        Destination(
            name="Salesforce",
            label="Salesforce Production",
            records_per_second=400.0,
            validates_email=True,
            rate_limit="REQUEST_LIMIT_EXCEEDED: TotalRequests Limit exceeded.",
            invalid_email="INVALID_EMAIL_ADDRESS: Email: invalid email address: {email}",
            not_found="NOT_FOUND: Provided external ID field does not exist or is not "
            "accessible: {id}",
            duplicate="DUPLICATE_VALUE: duplicate value found: Email duplicates value on record "
            "with id: 0035g0000{id}",
            auth_error="INVALID_SESSION_ID: Session expired or invalid",
            rejections=(
                ("REQUIRED_FIELD_MISSING: Required fields are missing: [{field}]", 3.0),
                (
                    "UNABLE_TO_LOCK_ROW: unable to obtain exclusive access to this record or "
                    "1 records: 0015g0000{id}",
                    2.0,
                ),
                ("STRING_TOO_LONG: {field}: data value too large (max length=80)", 2.0),
                ("FIELD_CUSTOM_VALIDATION_EXCEPTION: Seats must be a positive number", 1.0),
                (
                    "INVALID_FIELD_FOR_INSERT_UPDATE: Unable to create/update fields: {field}. "
                    "Please check the security settings of this field.",
                    1.0,
                ),
                (
                    "CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY: ContactTrigger: execution of "
                    "AfterUpdate caused by: System.LimitException: Too many SOQL queries: 101",
                    1.0,
                ),
                ("Read timed out after {num}s", 0.5),
            ),
        ),
        Destination(
            name="HubSpot",
            label="HubSpot",
            records_per_second=150.0,
            validates_email=True,
            rate_limit="429 Too Many Requests: You have reached your ten_secondly_rolling limit.",
            invalid_email="Property values were not valid: Email address {email} is invalid",
            not_found="resource not found: object with id {id} does not exist",
            duplicate="Contact already exists. Existing ID: 51{id}",
            auth_error="401 Unauthorized: The OAuth token used to make this call expired "
            "17 minute(s) ago.",
            rejections=(
                ('Property values were not valid: Property "{field}" does not exist', 3.0),
                ("INVALID_OPTION: {field} was not one of the allowed options", 2.0),
                ("Read timed out after {num}s", 1.0),
                ("502 Bad Gateway", 0.5),
            ),
        ),
        Destination(
            name="Braze",
            label="Braze (US-03)",
            records_per_second=2000.0,
            validates_email=True,
            rate_limit="429 Rate Limit Exceeded: You have exceeded the rate limit for /users/track",
            invalid_email="Invalid email address: '{email}'",
            not_found="external_id {id} not found",
            duplicate="Duplicate external_id in request",
            auth_error="401 Invalid API key: the key does not have permission for users.track",
            rejections=(
                ("'{field}' custom attribute value exceeds the 255 character limit", 2.0),
                ("attributes object: '{field}' is a reserved attribute name", 1.0),
                ("Invalid 'time' value: must be ISO-8601", 1.0),
                ("503 Service Unavailable after {num} retries", 1.0),
            ),
        ),
        Destination(
            name="GoogleAds",
            label="Google Ads (Customer Match)",
            records_per_second=5000.0,
            validates_email=False,
            rate_limit="RESOURCE_EXHAUSTED: Too many requests. Retry in {num} seconds.",
            invalid_email=None,
            not_found="RESOURCE_NOT_FOUND: user list member {id} not found",
            duplicate=None,
            auth_error="UNAUTHENTICATED: Request had invalid authentication credentials. "
            "Expected OAuth 2 access token.",
            rejections=(
                (
                    "INVALID_ARGUMENT: UserIdentifier must have exactly one of hashed_email, "
                    "hashed_phone_number, mobile_id, third_party_user_id or address_info",
                    3.0,
                ),
                (
                    "CONCURRENT_MODIFICATION: Multiple requests were attempting to modify the "
                    "same resource at once. Retry the request.",
                    2.0,
                ),
                ("DEADLINE_EXCEEDED: Deadline exceeded after {num}s", 1.0),
            ),
        ),
        Destination(
            name="FacebookAds",
            label="Facebook Ads",
            records_per_second=4000.0,
            validates_email=False,
            rate_limit="(#80003) There have been too many calls to this ad-account. "
            "Wait a bit and try again.",
            invalid_email=None,
            not_found="(#100) Custom audience member {id} does not exist",
            duplicate=None,
            auth_error="Error validating access token: Session has expired.",
            rejections=(
                ("(#100) Invalid parameter: email hash is not a valid SHA256 hash", 3.0),
                (
                    "(#2650) Failed to update the custom audience: audience 2384{id} is being "
                    "updated, try again later",
                    2.0,
                ),
                ("(#1) An unknown error occurred", 1.0),
                ("Request timed out after {num}s", 1.0),
            ),
        ),
        Destination(
            name="Iterable",
            label="Iterable",
            records_per_second=1000.0,
            validates_email=True,
            rate_limit="429: Rate limit exceeded (limit: 500 requests/second)",
            invalid_email="Invalid email: {email}",
            not_found="User with userId {id} does not exist",
            duplicate="Email already exists for a different userId",
            auth_error="401: Invalid API key",
            rejections=(
                ("Field '{field}' type mismatch: expected long, got string", 3.0),
                ("Data field '{field}' exceeds maximum size", 1.0),
                ("Gateway timeout after {num}s", 1.0),
            ),
        ),
        Destination(
            name="GoogleSheets",
            label="Google Sheets",
            records_per_second=300.0,
            validates_email=False,
            rate_limit="429 RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Write requests' "
            "and limit 'Write requests per minute per user'",
            invalid_email=None,
            not_found="Row for key {id} not found",
            duplicate=None,
            auth_error="403 PERMISSION_DENIED: The caller does not have permission",
            rejections=(
                ("Cell value in column {field} exceeds 50000 characters", 2.0),
                ("The service is currently unavailable. Retried {num} times.", 1.0),
            ),
        ),
        Destination(
            name="Marketo",
            label="Marketo",
            records_per_second=100.0,
            validates_email=True,
            rate_limit="606: Max rate limit '100' exceeded with in '20' secs",
            invalid_email="1003: Invalid email address: {email}",
            not_found="1004: Lead not found",
            duplicate="1005: Lead already exists (id: {id})",
            auth_error="601: Access token invalid",
            rejections=(
                ("1007: Multiple leads match the lookup criteria", 2.0),
                ("1006: Field '{field}' not found", 2.0),
                ("604: Request timed out after {num}s", 1.0),
            ),
        ),
    )
}

# Run-level errors that are not about the destination.
PRESEND_ERRORS = (
    "Source query failed: SQL compilation error: Object 'ANALYTICS.MARTS.{table}' does not exist "
    "or not authorized.",
    "Source query failed: Warehouse query timed out after 3600 seconds",
    "Unable to connect to the source: connection refused (warehouse suspended)",
)
MIDRUN_ERRORS = (
    "Sync exceeded the maximum run time of 6 hours and was terminated",
    "Lost connection to {destination} after 5 retries: Connection reset by peer",
)
CANCEL_ERRORS = (
    "Sync run cancelled by user ana.lopez@example.com",
    "Sync run cancelled: superseded by a newer run",
)

# --- record shapes ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One field of the source record. `kind` selects the vectorised value builder."""

    name: str
    kind: str  # email | name | pool | int | money | bool | ts | changed_at | array | object
    json_type: str  # string | number | boolean | array | object
    pool: str | None = None  # key into POOLS for kind pool/array/object
    lo: int = 0  # int range for kind int
    hi: int = 100
    mutable: bool = False  # value depends on the row's version (changes on upsert)


@dataclass(frozen=True)
class Drift:
    """Payload schema drift candidates: a field that may be added, removed or retyped."""

    add: Field
    remove: str
    retype: str  # a number field that becomes a string


ENTITY_FIELDS: dict[str, tuple[Field, ...]] = {
    "person": (
        Field("email", "email", "string"),
        Field("first_name", "name", "string", pool="first_names"),
        Field("last_name", "name", "string", pool="last_names"),
        Field("plan", "pool", "string", pool="plans", mutable=True),
        Field("seats", "int", "number", lo=1, hi=250, mutable=True),
        Field("lifetime_value", "money", "number", lo=0, hi=250_000, mutable=True),
        Field("is_active", "bool", "boolean", mutable=True),
        Field("country", "pool", "string", pool="countries"),
        Field("tags", "array", "array", pool="tags", mutable=True),
        Field("signup_at", "ts", "string"),
        Field("updated_at", "changed_at", "string", mutable=True),
    ),
    "account": (
        Field("name", "pool", "string", pool="companies"),
        Field("domain", "pool", "string", pool="company_domains"),
        Field("industry", "pool", "string", pool="industries"),
        Field("employees", "int", "number", lo=3, hi=20_000, mutable=True),
        Field("arr", "money", "number", lo=1_000, hi=2_000_000, mutable=True),
        Field("is_customer", "bool", "boolean", mutable=True),
        Field("health_score", "int", "number", lo=0, hi=100, mutable=True),
        Field("owner_email", "pool", "string", pool="owners", mutable=True),
        Field("billing_address", "object", "object", pool="addresses"),
        Field("updated_at", "changed_at", "string", mutable=True),
    ),
    "event": (
        Field("user_id", "int", "string", lo=1, hi=400_000),
        Field("event_name", "pool", "string", pool="event_names"),
        Field("occurred_at", "changed_at", "string"),
        Field("platform", "pool", "string", pool="platforms"),
        Field("revenue", "money", "number", lo=0, hi=50_000),
        Field("properties", "object", "object", pool="event_properties"),
    ),
}

ENTITY_DRIFT: dict[str, Drift] = {
    "person": Drift(
        add=Field("lead_score", "int", "number", lo=0, hi=100, mutable=True),
        remove="tags",
        retype="seats",
    ),
    "account": Drift(
        add=Field("churn_risk", "pool", "string", pool="churn_risk", mutable=True),
        remove="industry",
        retype="employees",
    ),
    "event": Drift(
        add=Field("session_id", "int", "string", lo=10_000_000, hi=99_999_999),
        remove="platform",
        retype="revenue",
    ),
}

# --- sync archetypes ----------------------------------------------------------------------------

SOURCE_OBJECT_TYPES = {
    "segment": "DataWarehouse::FilterSegmentSource",
    "cohort": "DataWarehouse::CohortSource",
    "model": "DataWarehouse::Query",
    "entity": "DataWarehouse::BusinessObjectSource",
    "table": "DataWarehouse::Table",
}


@dataclass(frozen=True)
class Archetype:
    """A kind of sync users build: what it reads, where it writes and how."""

    behavior: str
    destination: str
    dest_object: str
    source_kind: str  # key of SOURCE_OBJECT_TYPES
    model_name: str
    entity: str  # key of ENTITY_FIELDS
    primary_key: str
    interval_hours: tuple[float, ...]  # schedule candidates
    mirror_operation: bool = False  # file/Sheets destinations keep the `mirror` operation
    split_group: str | None = None


# The first six cover the six behaviours; the first nine cover every destination.
ARCHETYPES: tuple[Archetype, ...] = (
    Archetype("mirror", "FacebookAds", "CustomAudience", "segment", "High-intent trial users",
              "person", "email", (6.0, 12.0, 24.0)),
    Archetype("upsert", "Salesforce", "Contact", "model", "Product qualified contacts",
              "person", "user_id", (1.0, 2.0, 4.0)),
    Archetype("update", "HubSpot", "Company", "model", "Account health scores",
              "account", "account_id", (6.0, 12.0)),
    Archetype("append", "Braze", "CustomEvent", "table", "analytics.events.checkout_completed",
              "event", "event_id", (1.0, 0.5)),
    Archetype("create", "Marketo", "Lead", "segment", "New webinar registrants",
              "person", "email", (2.0, 4.0)),
    Archetype("delete", "Salesforce", "Lead", "model", "Stale leads to purge",
              "person", "lead_id", (24.0,)),
    Archetype("mirror", "GoogleSheets", "Worksheet", "model", "Churn risk accounts",
              "account", "account_id", (12.0, 24.0), mirror_operation=True),
    Archetype("mirror", "GoogleAds", "CustomerMatchUserList", "cohort",
              "Winback campaign - treatment", "person", "email", (24.0,),
              split_group="treatment"),
    Archetype("upsert", "Iterable", "User", "entity", "Users", "person", "user_id", (1.0, 3.0)),
    Archetype("upsert", "Braze", "User", "entity", "Users", "person", "user_id", (1.0, 2.0)),
    Archetype("mirror", "Iterable", "List", "segment", "Newsletter subscribers",
              "person", "email", (6.0, 12.0)),
    Archetype("update", "Salesforce", "Account", "model", "Account enrichment",
              "account", "account_id", (4.0, 6.0)),
    Archetype("mirror", "FacebookAds", "CustomAudience", "cohort", "Winback campaign - control",
              "person", "email", (24.0,), split_group="control"),
    Archetype("upsert", "HubSpot", "Contact", "model", "Lifecycle stage changes",
              "person", "user_id", (2.0, 4.0)),
    Archetype("append", "Iterable", "Event", "table", "analytics.events.feature_used",
              "event", "event_id", (1.0,)),
    Archetype("mirror", "GoogleAds", "CustomerMatchUserList", "segment", "Lapsed purchasers",
              "person", "email", (12.0, 24.0)),
    Archetype("upsert", "Salesforce", "Account", "table", "analytics.marts.dim_accounts",
              "account", "account_id", (6.0,)),
    Archetype("create", "HubSpot", "Contact", "segment", "Event attendees not in CRM",
              "person", "email", (4.0,)),
)

WAREHOUSES = ("snowflake", "bigquery", "databricks", "redshift", "postgres")

# --- value pools --------------------------------------------------------------------------------

# first/last names with their ASCII spelling for email local parts
FIRST_NAMES = (
    ("Ana", "ana"), ("José", "jose"), ("Zoë", "zoe"), ("Björn", "bjorn"), ("Siobhán", "siobhan"),
    ("Wei", "wei"), ("Priya", "priya"), ("Mohammed", "mohammed"), ("Olivia", "olivia"),
    ("Liam", "liam"), ("Emma", "emma"), ("Noah", "noah"), ("Chloé", "chloe"), ("Mateo", "mateo"),
    ("Yuki", "yuki"), ("Aisha", "aisha"), ("Lucas", "lucas"), ("Sofia", "sofia"),
    ("Kwame", "kwame"), ("Ingrid", "ingrid"), ("Dmitri", "dmitri"), ("Fatima", "fatima"),
    ("Hannah", "hannah"), ("Rafael", "rafael"), ("Mei", "mei"), ("Oscar", "oscar"),
    ("Léa", "lea"), ("Arjun", "arjun"), ("Grace", "grace"), ("Tomás", "tomas"),
)
LAST_NAMES = (
    ("García", "garcia"), ("Smith", "smith"), ("Müller", "muller"), ("Nguyen", "nguyen"),
    ("O'Brien", "obrien"), ("Kowalski", "kowalski"), ("Johnson", "johnson"), ("Tanaka", "tanaka"),
    ("Silva", "silva"), ("Patel", "patel"), ("Okafor", "okafor"), ("Rossi", "rossi"),
    ("Dubois", "dubois"), ("Andersson", "andersson"), ("Kim", "kim"), ("Cohen", "cohen"),
    ("Novák", "novak"), ("Hernández", "hernandez"), ("Brown", "brown"), ("Ivanova", "ivanova"),
    ("Li", "li"), ("Fischer", "fischer"), ("Haddad", "haddad"), ("Walker", "walker"),
)
EMAIL_DOMAINS = (
    "gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me", "acme.io",
    "globex.com", "initech.com", "umbrella.co", "hooli.xyz", "example.org", "web.de",
)

POOLS: dict[str, tuple] = {
    "plans": ("free", "starter", "pro", "business", "enterprise"),
    "countries": ("US", "GB", "DE", "FR", "ES", "BR", "IN", "JP", "CA", "AU", "NL", "SE", "MX"),
    "tags": (
        [], ["beta"], ["vip"], ["beta", "newsletter"], ["churn-risk"], ["webinar-2026"],
        ["partner", "vip"], ["newsletter"], ["trial", "high-intent"],
    ),
    "companies": (
        "Acme Corp", "Globex", "Initech", "Umbrella Holdings", "Hooli", "Stark Industries",
        "Wayne Enterprises", "Wonka Industries", "Tyrell Corporation", "Cyberdyne Systems",
        "Soylent", "Massive Dynamic", "Vandelay Industries", "Pied Piper", "Aperture Science",
        "Nakatomi Trading", "Oceanic Airlines", "Monarch Solutions", "Gringotts", "Bluth Company",
    ),
    "company_domains": (
        "acme.com", "globex.com", "initech.com", "umbrella.co", "hooli.xyz", "stark.com",
        "wayne.com", "wonka.com", "tyrell.com", "cyberdyne.io", "soylent.com", "massive.com",
        "vandelay.com", "piedpiper.com", "aperture.com", "nakatomi.jp",
    ),
    "industries": (
        "Software", "Retail", "Healthcare", "Financial Services", "Manufacturing", "Education",
        "Media", "Logistics", "Hospitality", "Energy",
    ),
    "owners": (
        "maria.chen@vendor.example", "sam.okoro@vendor.example", "julia.berg@vendor.example",
        "dev.patel@vendor.example", "lena.novak@vendor.example",
    ),
    "addresses": (
        {"city": "Berlin", "country": "DE", "postal_code": "10115"},
        {"city": "Austin", "country": "US", "postal_code": "73301"},
        {"city": "São Paulo", "country": "BR", "postal_code": "01000-000"},
        {"city": "London", "country": "GB", "postal_code": "EC1A 1BB"},
        {"city": "Tokyo", "country": "JP", "postal_code": "100-0001"},
        {"city": "Toronto", "country": "CA", "postal_code": "M5H 2N2"},
        {"city": "Paris", "country": "FR", "postal_code": "75001"},
    ),
    "event_names": (
        "checkout_completed", "feature_used", "page_viewed", "plan_upgraded", "invite_sent",
        "report_exported", "trial_started", "cart_abandoned",
    ),
    "platforms": ("web", "ios", "android", "api"),
    "event_properties": (
        {"currency": "USD", "items": 2},
        {"currency": "EUR", "items": 1, "coupon": "WELCOME10"},
        {"feature": "dashboards", "duration_ms": 5400},
        {"feature": "exports", "format": "csv"},
        {"path": "/pricing", "referrer": "google"},
        {"path": "/docs/getting-started", "referrer": None},
        {"seats_before": 5, "seats_after": 12},
    ),
    "churn_risk": ("low", "medium", "high"),
}
