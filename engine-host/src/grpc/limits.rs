//! The limits every call passes before a handler sees it, keyed on who
//! calls: the server's calls in flight (beyond it calls are shed at once,
//! UNAVAILABLE), and per caller key its calls in flight, its calls per
//! second, and for calls that create a match the server's live matches and
//! the key's creations per minute (RESOURCE_EXHAUSTED); an organizer's
//! creation also passes its tenant's live matches and the creations per
//! minute of all the tenant's credentials together. Every refusal says how
//! long to wait. The gRPC layer ([`super::layer`]) applies them; this module
//! holds only the counting, so it is tested without a server.
//!
//! **The key.** A caller is who its bearer credential says: the admin, or
//! an organizer credential by its id (the secret is hashed and looked up,
//! never kept). Behind a load balancer every caller has the balancer's
//! address, so the peer address is never the key. A player acting with a
//! seat token is its seat's own key ([`SeatCharge`]); every other caller
//! without a credential (spectators, a token no seat holds) shares one key,
//! `anonymous`, and every call with a credential the host does not know
//! shares another, `unrecognized` (the engine refuses those calls anyway).
//! A credential sent in a request's `admin_token` field rather than the
//! metadata is not visible here, so such a call counts as anonymous.
//!
//! **The tenant.** An organizer credential belongs to a tenant, which the
//! key carries. The admin and anonymous callers create in the admin's
//! tenant, which the server-wide limits already bound, so tenant limits
//! apply to organizers only: they share one server among platforms, and
//! the admin is the operator.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use sha2::Digest;

use crate::metrics::LimitKind;

/// The numbers; 0 turns a limit off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitConfig {
    /// Calls the server serves at once; beyond it a call is shed.
    pub server_calls: usize,
    /// Calls one key has in flight at once.
    pub credential_calls: usize,
    /// Calls one key makes per second (a bucket of this many tokens that
    /// refills at this rate, so a second's worth may come at once).
    pub credential_rate: u32,
    /// Matches one key creates per minute (a bucket of this many that
    /// refills at this rate per minute).
    pub creates_per_minute: u32,
    /// Live (waiting or running) matches the server holds; a creation
    /// beyond it is refused.
    pub live_matches: usize,
    /// Live matches one tenant holds; an organizer's creation beyond it is
    /// refused.
    pub tenant_live_matches: usize,
    /// Matches one tenant's credentials together create per minute (a
    /// bucket, as for `creates_per_minute`).
    pub tenant_creates_per_minute: u32,
}

/// Who a call is counted against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    /// No credential.
    Anonymous,
    /// A credential the host does not know, or a malformed one.
    Unrecognized,
    /// The admin token.
    Admin,
    /// A call without a credential to a method that takes a seat token:
    /// admitted past the server's cap only, and charged by its handler once
    /// the token is read ([`SeatCharge`]).
    SeatCall,
    /// An organizer credential.
    Credential {
        /// Its id.
        id: String,
        /// The tenant it belongs to (never the admin's, which is empty).
        tenant: String,
    },
}

impl Key {
    /// How logs and refusals name the key.
    pub fn name(&self) -> &str {
        match self {
            Key::Anonymous | Key::SeatCall => "anonymous",
            Key::Unrecognized => "unrecognized",
            Key::Admin => "admin",
            Key::Credential { id, .. } => id,
        }
    }

    /// [`Key::name`], owned where it must be, for a call's log lines.
    pub fn label(&self) -> std::borrow::Cow<'static, str> {
        match self {
            Key::Anonymous | Key::SeatCall => "anonymous".into(),
            Key::Unrecognized => "unrecognized".into(),
            Key::Admin => "admin".into(),
            Key::Credential { id, .. } => id.clone().into(),
        }
    }

    /// The tenant whose limits the key's creations pass: an organizer's;
    /// `None` for everyone else, whom tenant limits do not bind.
    pub fn tenant(&self) -> Option<&str> {
        match self {
            Key::Credential { tenant, .. } => Some(tenant),
            Key::Anonymous | Key::SeatCall | Key::Unrecognized | Key::Admin => None,
        }
    }
}

/// A bucket of tokens that refills continuously.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn full(capacity: u32, now: Instant) -> Bucket {
        Bucket {
            tokens: f64::from(capacity),
            at: now,
        }
    }

    /// Takes a token, or says how long until one is there. `capacity`
    /// tokens refill per `period`.
    fn take(&mut self, capacity: u32, period: Duration, now: Instant) -> Result<(), Duration> {
        let per_second = f64::from(capacity) / period.as_secs_f64();
        self.tokens = self
            .refilled(capacity, period, now)
            .min(f64::from(capacity));
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - self.tokens) / per_second))
        }
    }

    /// The tokens the bucket would hold at `now`, before the cap.
    fn refilled(&self, capacity: u32, period: Duration, now: Instant) -> f64 {
        let per_second = f64::from(capacity) / period.as_secs_f64();
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens + elapsed * per_second
    }

    /// Takes `tokens` a call owed once answered, into debt if need be but
    /// no deeper than a period's worth, which later calls wait out.
    fn spend(&mut self, tokens: f64, capacity: u32, period: Duration, now: Instant) {
        let refilled = self
            .refilled(capacity, period, now)
            .min(f64::from(capacity));
        self.tokens = (refilled - tokens).max(-f64::from(capacity));
        self.at = now;
    }

    /// Whether the bucket has refilled by `now`: forgetting it then changes
    /// nothing, since a new one starts full.
    fn is_full(&self, capacity: u32, period: Duration, now: Instant) -> bool {
        self.refilled(capacity, period, now) >= f64::from(capacity)
    }

    /// Puts back a token taken for a call that another limit then refused,
    /// so a refused call spends nothing.
    fn give_back(&mut self, capacity: u32) {
        self.tokens = (self.tokens + 1.0).min(f64::from(capacity));
    }
}

/// At most one log line per second for each key and limit, saying how
/// many calls were refused since the last.
#[derive(Debug, Default)]
struct LogGate {
    last_ms: AtomicU64,
    refused: AtomicU64,
}

impl LogGate {
    /// Counts a refusal; `Some(count)` when a line is due now.
    fn due(&self, since_start: Duration) -> Option<u64> {
        self.refused.fetch_add(1, Ordering::Relaxed);
        // Shifted by one, so 0 means "never logged".
        let now_ms = u64::try_from(since_start.as_millis()).unwrap_or(u64::MAX - 1) + 1;
        let last = self.last_ms.load(Ordering::Relaxed);
        if last != 0 && now_ms < last.saturating_add(1_000) {
            return None;
        }
        self.last_ms
            .compare_exchange(last, now_ms, Ordering::Relaxed, Ordering::Relaxed)
            .ok()?;
        Some(self.refused.swap(0, Ordering::Relaxed))
    }
}

/// One key's counters.
#[derive(Debug)]
pub struct KeyState {
    name: String,
    in_flight: AtomicUsize,
    rate: Mutex<Bucket>,
    creates: Mutex<Bucket>,
    /// One per [`LimitKind`], by its discriminant.
    logs: [LogGate; 8],
}

impl KeyState {
    fn new(name: &str, config: &LimitConfig, now: Instant) -> KeyState {
        KeyState {
            name: name.to_string(),
            in_flight: AtomicUsize::new(0),
            rate: Mutex::new(Bucket::full(config.credential_rate, now)),
            creates: Mutex::new(Bucket::full(config.creates_per_minute, now)),
            logs: Default::default(),
        }
    }
}

/// A call refused by a limit.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// Which limit.
    pub kind: LimitKind,
    /// The key it counted against.
    pub key: String,
    /// The tenant, when the limit is a tenant's.
    pub tenant: Option<String>,
    /// The limit's number.
    pub limit: u64,
    /// How long the caller should wait before trying again.
    pub retry_after: Duration,
    /// `Some(n)` when this refusal is to be logged, covering `n` refusals
    /// (this one and those not logged since the last line).
    pub log: Option<u64>,
}

/// How long a caller shed for load, or over its calls in flight, waits:
/// long enough for calls in flight to finish, short enough not to idle.
pub const BUSY_RETRY: Duration = Duration::from_millis(100);

/// How long a caller refused for the live-match cap waits: matches end at
/// the pace of play, not of calls.
pub const LIVE_MATCHES_RETRY: Duration = Duration::from_secs(5);

/// Admission to a call: counted in flight until dropped.
#[derive(Debug)]
pub struct Permit {
    limiter: Arc<Limiter>,
    key: Option<Arc<KeyState>>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.limiter.in_flight.fetch_sub(1, Ordering::Relaxed);
        if let Some(key) = &self.key {
            key.in_flight.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// The limits and their counters.
#[derive(Debug)]
pub struct Limiter {
    config: LimitConfig,
    started: Instant,
    in_flight: AtomicUsize,
    anonymous: Arc<KeyState>,
    unrecognized: Arc<KeyState>,
    admin: Arc<KeyState>,
    /// Organizer credentials by id: bounded by the credentials issued.
    credentials: RwLock<HashMap<String, Arc<KeyState>>>,
    /// Each tenant's creations bucket, by tenant: bounded by the tenants
    /// of the credentials issued.
    tenants: RwLock<HashMap<String, Arc<Mutex<Bucket>>>>,
    /// Each seat's calls-per-second bucket, by its token's hash.
    seats: Mutex<SeatBuckets>,
    /// How refusals of a seat's calls are named and logged (never by its
    /// token).
    seat: Arc<KeyState>,
    /// The calls of tokens with no bucket yet (a seat's first call, or a
    /// token no seat holds): a bucket of their own, so spectators flooding
    /// the anonymous key do not hold up a player's first call.
    unproven: Arc<KeyState>,
}

/// The seats' buckets: a token gets one only once a call with it has
/// succeeded, so tokens no seat holds never make one, and the map is
/// bounded by the seats held. Buckets back to full (idle for a second or
/// more) are swept out as the map grows.
#[derive(Debug)]
struct SeatBuckets {
    buckets: HashMap<[u8; 32], Bucket>,
    sweep_at: usize,
}

/// The fewest seat buckets kept before a sweep.
const SEAT_SWEEP_FLOOR: usize = 4096;

impl Limiter {
    /// Counters for `config`, every bucket full.
    pub fn new(config: LimitConfig) -> Arc<Limiter> {
        let now = Instant::now();
        Arc::new(Limiter {
            config,
            started: now,
            in_flight: AtomicUsize::new(0),
            anonymous: Arc::new(KeyState::new("anonymous", &config, now)),
            unrecognized: Arc::new(KeyState::new("unrecognized", &config, now)),
            admin: Arc::new(KeyState::new("admin", &config, now)),
            credentials: RwLock::new(HashMap::new()),
            tenants: RwLock::new(HashMap::new()),
            seats: Mutex::new(SeatBuckets {
                buckets: HashMap::new(),
                sweep_at: SEAT_SWEEP_FLOOR,
            }),
            seat: Arc::new(KeyState::new("seat", &config, now)),
            unproven: Arc::new(KeyState::new("unproven seat token", &config, now)),
        })
    }

    /// The numbers.
    pub fn config(&self) -> &LimitConfig {
        &self.config
    }

    fn state(&self, key: &Key, now: Instant) -> Arc<KeyState> {
        match key {
            Key::Anonymous | Key::SeatCall => Arc::clone(&self.anonymous),
            Key::Unrecognized => Arc::clone(&self.unrecognized),
            Key::Admin => Arc::clone(&self.admin),
            Key::Credential { id, .. } => {
                if let Some(state) = self
                    .credentials
                    .read()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(id)
                {
                    return Arc::clone(state);
                }
                Arc::clone(
                    self.credentials
                        .write()
                        .unwrap_or_else(|e| e.into_inner())
                        .entry(id.clone())
                        .or_insert_with(|| Arc::new(KeyState::new(id, &self.config, now))),
                )
            }
        }
    }

    /// The creations bucket of `tenant`.
    fn tenant_creates(&self, tenant: &str, now: Instant) -> Arc<Mutex<Bucket>> {
        if let Some(bucket) = self
            .tenants
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(tenant)
        {
            return Arc::clone(bucket);
        }
        Arc::clone(
            self.tenants
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .entry(tenant.to_string())
                .or_insert_with(|| {
                    Arc::new(Mutex::new(Bucket::full(
                        self.config.tenant_creates_per_minute,
                        now,
                    )))
                }),
        )
    }

    /// Admits a call by `key` at `now`, or refuses it. A call that creates
    /// a match (`creates`) also passes the live-match caps, asking
    /// `live_matches` for the server's count (`None`) or a tenant's
    /// (`Some(tenant)`), and the creations per minute of the key and of its
    /// tenant.
    pub fn admit(
        self: &Arc<Self>,
        key: &Key,
        creates: bool,
        live_matches: impl Fn(Option<&str>) -> usize,
        now: Instant,
    ) -> Result<Permit, Refusal> {
        let config = &self.config;
        let state = self.state(key, now);
        let in_flight = self.in_flight.fetch_add(1, Ordering::Relaxed);
        let mut permit = Permit {
            limiter: Arc::clone(self),
            key: None,
        };
        if config.server_calls > 0 && in_flight >= config.server_calls {
            return Err(self.refusal(
                &state,
                None,
                LimitKind::ServerCalls,
                config.server_calls,
                BUSY_RETRY,
                now,
            ));
        }
        if *key == Key::SeatCall {
            // Charged by its handler, against its seat (SeatCharge).
            return Ok(permit);
        }
        let key_in_flight = state.in_flight.fetch_add(1, Ordering::Relaxed);
        permit.key = Some(Arc::clone(&state));
        if config.credential_calls > 0 && key_in_flight >= config.credential_calls {
            return Err(self.refusal(
                &state,
                None,
                LimitKind::CredentialCalls,
                config.credential_calls,
                BUSY_RETRY,
                now,
            ));
        }
        if config.credential_rate > 0 {
            self.charge_rate(&state, now)?;
        }
        if creates {
            self.admit_creation(key, &state, live_matches, now)?;
        }
        Ok(permit)
    }

    /// The limits of a call that creates a match. The caps on live matches
    /// come first: a creation they refuse spends no creation token.
    fn admit_creation(
        &self,
        key: &Key,
        state: &KeyState,
        live_matches: impl Fn(Option<&str>) -> usize,
        now: Instant,
    ) -> Result<(), Refusal> {
        let config = &self.config;
        let tenant = key.tenant();
        if config.live_matches > 0 && live_matches(None) >= config.live_matches {
            return Err(self.refusal(
                state,
                None,
                LimitKind::LiveMatches,
                config.live_matches,
                LIVE_MATCHES_RETRY,
                now,
            ));
        }
        if let Some(tenant) = tenant
            && config.tenant_live_matches > 0
            && live_matches(Some(tenant)) >= config.tenant_live_matches
        {
            return Err(self.refusal(
                state,
                Some(tenant),
                LimitKind::TenantLiveMatches,
                config.tenant_live_matches,
                LIVE_MATCHES_RETRY,
                now,
            ));
        }
        if config.creates_per_minute > 0 {
            let taken = state
                .creates
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(config.creates_per_minute, Duration::from_secs(60), now);
            if let Err(wait) = taken {
                return Err(self.refusal(
                    state,
                    None,
                    LimitKind::CreatesPerMinute,
                    config.creates_per_minute,
                    wait,
                    now,
                ));
            }
        }
        if let Some(tenant) = tenant
            && config.tenant_creates_per_minute > 0
        {
            let taken = self
                .tenant_creates(tenant, now)
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(
                    config.tenant_creates_per_minute,
                    Duration::from_secs(60),
                    now,
                );
            if let Err(wait) = taken {
                if config.creates_per_minute > 0 {
                    state
                        .creates
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .give_back(config.creates_per_minute);
                }
                return Err(self.refusal(
                    state,
                    Some(tenant),
                    LimitKind::TenantCreatesPerMinute,
                    config.tenant_creates_per_minute,
                    wait,
                    now,
                ));
            }
        }
        Ok(())
    }

    fn refusal(
        &self,
        state: &KeyState,
        tenant: Option<&str>,
        kind: LimitKind,
        limit: impl TryInto<u64>,
        retry_after: Duration,
        now: Instant,
    ) -> Refusal {
        Refusal {
            kind,
            key: state.name.clone(),
            tenant: tenant.map(str::to_string),
            limit: limit.try_into().unwrap_or(u64::MAX),
            // Whole milliseconds, rounded up and at least one: a client
            // that reads the metadata's `retry_after_ms` must not retry
            // early, nor at once.
            retry_after: Duration::from_millis(
                u64::try_from(retry_after.as_nanos().div_ceil(1_000_000))
                    .unwrap_or(u64::MAX)
                    .max(1),
            ),
            log: state.logs[kind as usize].due(now.saturating_duration_since(self.started)),
        }
    }

    /// Calls in flight now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Relaxed)
    }

    /// Takes a token from `state`'s calls-per-second bucket.
    /// Charges `key` the `tokens` a call it made owed once answered
    /// ([`super::cost`]).
    pub fn spend(&self, key: &Key, tokens: f64, now: Instant) {
        let rate = self.config.credential_rate;
        if rate == 0 {
            return;
        }
        let state = self.state(key, now);
        let mut bucket = state.rate.lock().unwrap_or_else(|e| e.into_inner());
        bucket.spend(tokens, rate, Duration::from_secs(1), now);
    }

    fn charge_rate(&self, state: &KeyState, now: Instant) -> Result<(), Refusal> {
        let rate = self.config.credential_rate;
        let taken = state.rate.lock().unwrap_or_else(|e| e.into_inner()).take(
            rate,
            Duration::from_secs(1),
            now,
        );
        taken.map_err(|wait| self.refusal(state, None, LimitKind::CredentialRate, rate, wait, now))
    }
}

/// The charge of a call without a credential to a method that takes a seat
/// token, made by its handler once it has read the token: a spectator's
/// (no token) against the anonymous key; a token's against its seat's own
/// bucket when it has one, else against one bucket shared by every token
/// without one (a seat's first call, after which [`SeatCharge::proven`]
/// gives the token its bucket, and tokens no seat holds). So players share
/// no bucket with each other or with spectators, and a made-up token buys
/// no bucket of its own.
#[derive(Debug, Clone)]
pub struct SeatCharge {
    limiter: Arc<Limiter>,
    /// The token charged (its hash; `None`: a spectator's call), once
    /// charged: what the call owes when answered goes to the same bucket.
    charged: Arc<Mutex<Option<Option<[u8; 32]>>>>,
}

/// A token charged to the anonymous key that gets a bucket of its own once
/// its call succeeds.
#[derive(Debug)]
pub struct Unproven([u8; 32]);

impl SeatCharge {
    /// The charge of calls admitted by `limiter`.
    pub fn new(limiter: Arc<Limiter>) -> SeatCharge {
        SeatCharge {
            limiter,
            charged: Arc::default(),
        }
    }

    /// Charges the bucket this call was charged to the `tokens` it owed
    /// once answered: the seat's own, the shared one of tokens without a
    /// bucket, or the anonymous key's.
    pub fn spend(&self, tokens: f64, now: Instant) {
        let limiter = &self.limiter;
        let rate = limiter.config.credential_rate;
        let charged = *self.charged.lock().unwrap_or_else(|e| e.into_inner());
        let hash = match charged {
            None => return,
            Some(None) => return limiter.spend(&Key::Anonymous, tokens, now),
            Some(Some(hash)) => hash,
        };
        let period = Duration::from_secs(1);
        let mut seats = limiter.seats.lock().unwrap_or_else(|e| e.into_inner());
        match seats.buckets.get_mut(&hash) {
            Some(bucket) => bucket.spend(tokens, rate, period, now),
            None => {
                drop(seats);
                let mut shared = limiter
                    .unproven
                    .rate
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                shared.spend(tokens, rate, period, now);
            }
        }
    }

    /// The seat (its token's hash) the call was charged to, once charged
    /// to one; `None` for a call charged to the anonymous key or not yet.
    pub fn charged_to(&self) -> Option<[u8; 32]> {
        self.charged
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .flatten()
    }

    /// Charges a call presenting `token` (empty: none) at `now`; answers
    /// the token to pass to [`SeatCharge::proven`] when the call succeeds,
    /// if it has no bucket yet.
    pub fn charge(&self, token: &str, now: Instant) -> Result<Option<Unproven>, Refusal> {
        let limiter = &self.limiter;
        let rate = limiter.config.credential_rate;
        if rate == 0 {
            return Ok(None);
        }
        if token.is_empty() {
            *self.charged.lock().unwrap_or_else(|e| e.into_inner()) = Some(None);
            return limiter.charge_rate(&limiter.anonymous, now).map(|()| None);
        }
        let hash: [u8; 32] = sha2::Sha256::digest(token.as_bytes()).into();
        *self.charged.lock().unwrap_or_else(|e| e.into_inner()) = Some(Some(hash));
        let seat_taken = limiter
            .seats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .buckets
            .get_mut(&hash)
            .map(|bucket| bucket.take(rate, Duration::from_secs(1), now));
        match seat_taken {
            Some(Ok(())) => Ok(None),
            Some(Err(wait)) => Err(limiter.refusal(
                &limiter.seat,
                None,
                LimitKind::CredentialRate,
                rate,
                wait,
                now,
            )),
            None => limiter
                .charge_rate(&limiter.unproven, now)
                .map(|()| Some(Unproven(hash))),
        }
    }

    /// Gives a token whose call succeeded its own bucket (full: this call
    /// was charged to the shared one).
    pub fn proven(&self, token: Unproven, now: Instant) {
        let rate = self.limiter.config.credential_rate;
        let mut seats = self.limiter.seats.lock().unwrap_or_else(|e| e.into_inner());
        if seats.buckets.len() >= seats.sweep_at {
            seats
                .buckets
                .retain(|_, bucket| !bucket.is_full(rate, Duration::from_secs(1), now));
            seats.sweep_at = (seats.buckets.len() * 2).max(SEAT_SWEEP_FLOOR);
        }
        seats.buckets.insert(token.0, Bucket::full(rate, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> LimitConfig {
        LimitConfig {
            server_calls: 0,
            credential_calls: 0,
            credential_rate: 0,
            creates_per_minute: 0,
            live_matches: 0,
            tenant_live_matches: 0,
            tenant_creates_per_minute: 0,
        }
    }

    /// An organizer credential in a tenant of its own.
    fn org(id: &str) -> Key {
        member(id, id)
    }

    /// An organizer credential in `tenant`.
    fn member(id: &str, tenant: &str) -> Key {
        Key::Credential {
            id: id.to_string(),
            tenant: tenant.to_string(),
        }
    }

    #[test]
    fn with_every_limit_off_every_call_is_admitted() {
        let limiter = Limiter::new(config());
        let now = Instant::now();
        let permits: Vec<Permit> = (0..1000)
            .map(|_| {
                limiter
                    .admit(&Key::Anonymous, true, |_| 1 << 30, now)
                    .unwrap()
            })
            .collect();
        assert_eq!(limiter.in_flight(), 1000);
        drop(permits);
        assert_eq!(limiter.in_flight(), 0);
    }

    #[test]
    fn the_server_sheds_calls_beyond_its_limit_until_one_finishes() {
        let limiter = Limiter::new(LimitConfig {
            server_calls: 2,
            ..config()
        });
        let now = Instant::now();
        let first = limiter.admit(&org("a"), false, |_| 0, now).unwrap();
        let _second = limiter.admit(&org("b"), false, |_| 0, now).unwrap();
        let refused = limiter
            .admit(&Key::Anonymous, false, |_| 0, now)
            .unwrap_err();
        assert_eq!(refused.kind, LimitKind::ServerCalls);
        assert_eq!(refused.retry_after, BUSY_RETRY);
        assert_eq!(refused.limit, 2);
        assert_eq!(limiter.in_flight(), 2, "a refused call is not in flight");
        drop(first);
        assert!(limiter.admit(&Key::Anonymous, false, |_| 0, now).is_ok());
    }

    #[test]
    fn one_key_at_its_calls_in_flight_leaves_the_others_alone() {
        let limiter = Limiter::new(LimitConfig {
            credential_calls: 1,
            ..config()
        });
        let now = Instant::now();
        let held = limiter.admit(&org("flood"), false, |_| 0, now).unwrap();
        let refused = limiter.admit(&org("flood"), false, |_| 0, now).unwrap_err();
        assert_eq!(refused.kind, LimitKind::CredentialCalls);
        assert_eq!(refused.key, "flood");
        assert!(limiter.admit(&org("calm"), false, |_| 0, now).is_ok());
        assert!(limiter.admit(&Key::Admin, false, |_| 0, now).is_ok());
        drop(held);
        assert!(limiter.admit(&org("flood"), false, |_| 0, now).is_ok());
    }

    #[test]
    fn a_key_over_its_rate_waits_for_the_next_token() {
        let limiter = Limiter::new(LimitConfig {
            credential_rate: 10,
            ..config()
        });
        let start = Instant::now();
        for _ in 0..10 {
            drop(limiter.admit(&Key::Anonymous, false, |_| 0, start).unwrap());
        }
        let refused = limiter
            .admit(&Key::Anonymous, false, |_| 0, start)
            .unwrap_err();
        assert_eq!(refused.kind, LimitKind::CredentialRate);
        assert_eq!(refused.retry_after, Duration::from_millis(100));
        assert!(
            limiter
                .admit(&Key::Unrecognized, false, |_| 0, start)
                .is_ok(),
            "unknown credentials are counted apart from anonymous callers"
        );
        let later = start + Duration::from_millis(100);
        assert!(limiter.admit(&Key::Anonymous, false, |_| 0, later).is_ok());
        assert!(limiter.admit(&Key::Anonymous, false, |_| 0, later).is_err());
    }

    #[test]
    fn creations_per_minute_count_only_calls_that_create() {
        let limiter = Limiter::new(LimitConfig {
            creates_per_minute: 2,
            ..config()
        });
        let start = Instant::now();
        for _ in 0..2 {
            drop(limiter.admit(&org("p"), true, |_| 0, start).unwrap());
        }
        drop(limiter.admit(&org("p"), false, |_| 0, start).unwrap());
        let refused = limiter.admit(&org("p"), true, |_| 0, start).unwrap_err();
        assert_eq!(refused.kind, LimitKind::CreatesPerMinute);
        assert_eq!(refused.retry_after, Duration::from_secs(30));
        assert!(limiter.admit(&org("q"), true, |_| 0, start).is_ok());
        let later = start + Duration::from_secs(30);
        assert!(limiter.admit(&org("p"), true, |_| 0, later).is_ok());
    }

    #[test]
    fn the_live_match_cap_refuses_creations_only() {
        let limiter = Limiter::new(LimitConfig {
            live_matches: 5,
            creates_per_minute: 1,
            ..config()
        });
        let now = Instant::now();
        let refused = limiter.admit(&Key::Admin, true, |_| 5, now).unwrap_err();
        assert_eq!(refused.kind, LimitKind::LiveMatches);
        assert_eq!(refused.retry_after, LIVE_MATCHES_RETRY);
        assert!(limiter.admit(&Key::Admin, false, |_| 5, now).is_ok());
        assert!(
            limiter.admit(&Key::Admin, true, |_| 4, now).is_ok(),
            "a creation refused for the cap did not use the quota"
        );
    }

    #[test]
    fn refusals_are_logged_at_most_once_a_second_per_key_and_limit() {
        let limiter = Limiter::new(LimitConfig {
            credential_rate: 1,
            ..config()
        });
        let start = Instant::now();
        drop(limiter.admit(&Key::Anonymous, false, |_| 0, start).unwrap());
        let logs: Vec<Option<u64>> = (0..5)
            .map(|_| {
                limiter
                    .admit(&Key::Anonymous, false, |_| 0, start)
                    .unwrap_err()
                    .log
            })
            .collect();
        assert_eq!(logs, vec![Some(1), None, None, None, None]);
        let later = start + Duration::from_millis(1_500);
        drop(limiter.admit(&Key::Anonymous, false, |_| 0, later).unwrap());
        let next = limiter
            .admit(&Key::Anonymous, false, |_| 0, later)
            .unwrap_err();
        assert_eq!(next.log, Some(5), "the four not logged and this one");
    }

    #[test]
    fn a_tenants_live_match_cap_binds_all_its_credentials_and_no_one_else() {
        let limiter = Limiter::new(LimitConfig {
            tenant_live_matches: 2,
            ..config()
        });
        let now = Instant::now();
        // The server holds many, of which the tenant "full" holds two.
        let live = |tenant: Option<&str>| match tenant {
            None => 100,
            Some("full") => 2,
            Some(_) => 1,
        };
        for id in ["a", "b"] {
            let refused = limiter
                .admit(&member(id, "full"), true, live, now)
                .unwrap_err();
            assert_eq!(refused.kind, LimitKind::TenantLiveMatches);
            assert_eq!(refused.key, id);
            assert_eq!(refused.tenant.as_deref(), Some("full"));
            assert_eq!(refused.limit, 2);
            assert_eq!(refused.retry_after, LIVE_MATCHES_RETRY);
        }
        assert!(
            limiter
                .admit(&member("a", "full"), false, live, now)
                .is_ok(),
            "calls that create nothing pass"
        );
        assert!(
            limiter
                .admit(&member("c", "other"), true, live, now)
                .is_ok()
        );
        assert!(limiter.admit(&Key::Admin, true, live, now).is_ok());
        assert!(limiter.admit(&Key::Anonymous, true, live, now).is_ok());
        let one_ended = |tenant: Option<&str>| if tenant == Some("full") { 1 } else { 0 };
        assert!(
            limiter
                .admit(&member("b", "full"), true, one_ended, now)
                .is_ok()
        );
    }

    #[test]
    fn the_server_cap_is_checked_before_the_tenants() {
        let limiter = Limiter::new(LimitConfig {
            live_matches: 3,
            tenant_live_matches: 1,
            ..config()
        });
        let refused = limiter
            .admit(&member("a", "t"), true, |_| 3, Instant::now())
            .unwrap_err();
        assert_eq!(refused.kind, LimitKind::LiveMatches);
        assert_eq!(refused.tenant, None);
    }

    #[test]
    fn a_tenants_creations_per_minute_are_summed_over_its_credentials() {
        let limiter = Limiter::new(LimitConfig {
            creates_per_minute: 2,
            tenant_creates_per_minute: 3,
            ..config()
        });
        let start = Instant::now();
        for key in [member("a", "t"), member("a", "t"), member("b", "t")] {
            drop(limiter.admit(&key, true, |_| 0, start).unwrap());
        }
        let refused = limiter
            .admit(&member("b", "t"), true, |_| 0, start)
            .unwrap_err();
        assert_eq!(refused.kind, LimitKind::TenantCreatesPerMinute);
        assert_eq!(refused.key, "b");
        assert_eq!(refused.tenant.as_deref(), Some("t"));
        assert_eq!(refused.limit, 3);
        assert_eq!(refused.retry_after, Duration::from_secs(20));
        assert_eq!(
            limiter
                .admit(&member("a", "t"), true, |_| 0, start)
                .unwrap_err()
                .kind,
            LimitKind::CreatesPerMinute,
            "a credential's own quota still counts"
        );
        assert!(limiter.admit(&member("c", "u"), true, |_| 0, start).is_ok());
        assert!(limiter.admit(&Key::Admin, true, |_| 0, start).is_ok());
        let later = start + Duration::from_secs(20);
        assert!(limiter.admit(&member("b", "t"), true, |_| 0, later).is_ok());
    }

    #[test]
    fn a_creation_its_tenant_refuses_keeps_its_credentials_token() {
        let limiter = Limiter::new(LimitConfig {
            creates_per_minute: 1,
            tenant_creates_per_minute: 2,
            ..config()
        });
        let start = Instant::now();
        drop(
            limiter
                .admit(&member("a", "t"), true, |_| 0, start)
                .unwrap(),
        );
        drop(
            limiter
                .admit(&member("b", "t"), true, |_| 0, start)
                .unwrap(),
        );
        for _ in 0..3 {
            let refused = limiter
                .admit(&member("c", "t"), true, |_| 0, start)
                .unwrap_err();
            assert_eq!(refused.kind, LimitKind::TenantCreatesPerMinute);
        }
        // Half a minute refills one of the tenant's two tokens and half of
        // a credential's one: only a credential that spent nothing has one.
        let later = start + Duration::from_secs(30);
        assert!(limiter.admit(&member("c", "t"), true, |_| 0, later).is_ok());
    }

    fn seat_limiter(rate: u32) -> (Arc<Limiter>, SeatCharge) {
        let limiter = Limiter::new(LimitConfig {
            credential_rate: rate,
            ..config()
        });
        let charge = SeatCharge::new(Arc::clone(&limiter));
        (limiter, charge)
    }

    #[test]
    fn a_seat_token_gets_its_own_bucket_once_a_call_with_it_succeeded() {
        let (_, charge) = seat_limiter(2);
        let now = Instant::now();
        let first = charge.charge("seat-a", now).expect("a first call");
        charge.proven(first.expect("no bucket yet"), now);
        for _ in 0..2 {
            assert!(
                matches!(charge.charge("seat-a", now), Ok(None)),
                "its own bucket"
            );
        }
        let refused = charge
            .charge("seat-a", now)
            .expect_err("its bucket is empty");
        assert_eq!(refused.kind, LimitKind::CredentialRate);
        assert_eq!(refused.key, "seat", "never named by its token");
        // Another seat, and spectators, are not held up by it.
        let other = charge.charge("seat-b", now).expect("another seat");
        charge.proven(other.expect("no bucket yet"), now);
        assert!(matches!(charge.charge("seat-b", now), Ok(None)));
        assert!(matches!(charge.charge("", now), Ok(None)), "a spectator");
    }

    #[test]
    fn made_up_tokens_share_one_bucket_and_spectators_another() {
        let (_, charge) = seat_limiter(3);
        let now = Instant::now();
        for n in 0..3 {
            assert!(charge.charge(&format!("made-up-{n}"), now).is_ok());
        }
        let refused = charge
            .charge("made-up-3", now)
            .expect_err("tokens without a bucket share one");
        assert_eq!(refused.key, "unproven seat token");
        for _ in 0..3 {
            assert!(charge.charge("", now).is_ok(), "spectators have their own");
        }
        assert_eq!(charge.charge("", now).expect_err("spent").key, "anonymous");
    }

    #[test]
    fn idle_seat_buckets_are_swept_as_the_map_grows() {
        let (limiter, charge) = seat_limiter(1);
        let start = Instant::now();
        for n in 0..SEAT_SWEEP_FLOOR {
            let token = charge
                .charge(&format!("seat-{n}"), start + Duration::from_secs(n as u64))
                .expect("a first call")
                .expect("no bucket");
            charge.proven(token, start + Duration::from_secs(n as u64));
        }
        let later = start + Duration::from_secs(SEAT_SWEEP_FLOOR as u64 + 10);
        let token = charge
            .charge("seat-new", later)
            .expect("call")
            .expect("new");
        charge.proven(token, later);
        let seats = limiter.seats.lock().expect("seats");
        assert_eq!(seats.buckets.len(), 1, "every idle full bucket went");
        assert_eq!(seats.sweep_at, SEAT_SWEEP_FLOOR);
    }
}
