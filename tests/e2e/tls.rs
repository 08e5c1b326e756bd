//! TLS on the gRPC listener: a throwaway CA, the server's certificate and
//! an admin client certificate are made here (rcgen), never kept. A client
//! with the CA file plays; a plaintext client gets nowhere; Admin calls
//! need the client certificate. The CLI does the same with `--ca-file`.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::admin_client::AdminClient;
use tabletop_proto::v1::catalog_client::CatalogClient;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions, as_admin, target_dir};
use tonic::Code;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

use crate::support::{create, play_first_legal, reason, spectator};

/// The PEM files of one test's TLS setup.
struct Pki {
    ca: PathBuf,
    server_cert: PathBuf,
    server_key: PathBuf,
    admin_cert: PathBuf,
    admin_key: PathBuf,
}

fn write(dir: &Path, name: &str, pem: String) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, pem).expect("write a PEM file");
    path
}

/// A CA, a server certificate for localhost / 127.0.0.1 and a client
/// certificate, all signed by the CA, written to `dir`.
fn make_pki(dir: &Path) -> Pki {
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "tabletop test CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_key = KeyPair::generate().expect("CA key");
    let ca_cert = ca.self_signed(&ca_key).expect("CA certificate");
    let issuer = Issuer::new(ca, ca_key);
    let leaf = |names: Vec<String>, usage: ExtendedKeyUsagePurpose| {
        let mut params = CertificateParams::new(names).expect("leaf params");
        params
            .distinguished_name
            .push(DnType::CommonName, "tabletop test");
        params.extended_key_usages = vec![usage];
        let key = KeyPair::generate().expect("leaf key");
        let cert = params.signed_by(&key, &issuer).expect("leaf certificate");
        (cert.pem(), key.serialize_pem())
    };
    let (server_cert, server_key) = leaf(
        vec!["localhost".into(), "127.0.0.1".into()],
        ExtendedKeyUsagePurpose::ServerAuth,
    );
    let (admin_cert, admin_key) = leaf(Vec::new(), ExtendedKeyUsagePurpose::ClientAuth);
    Pki {
        ca: write(dir, "ca.pem", ca_cert.pem()),
        server_cert: write(dir, "server.pem", server_cert),
        server_key: write(dir, "server.key", server_key),
        admin_cert: write(dir, "admin.pem", admin_cert),
        admin_key: write(dir, "admin.key", admin_key),
    }
}

/// A host serving TLS with `pki`'s certificate, requiring its client
/// certificates for Admin calls, with `more` arguments.
async fn tls_host_with(pki: &Pki, more: Vec<String>) -> Host {
    let path = |p: &PathBuf| p.display().to_string();
    let mut args = vec![
        "--tls-cert".into(),
        path(&pki.server_cert),
        "--tls-key".into(),
        path(&pki.server_key),
        "--tls-client-ca".into(),
        path(&pki.ca),
    ];
    args.extend(more);
    Host::start_with(HostOptions {
        args,
        ..Default::default()
    })
    .await
}

async fn tls_host(pki: &Pki) -> Host {
    tls_host_with(pki, Vec::new()).await
}

fn https(host: &Host) -> String {
    host.url.replace("http://", "https://")
}

async fn tls_channel(host: &Host, pki: &Pki, client_cert: bool) -> Channel {
    let read = |p: &PathBuf| std::fs::read(p).expect("read a PEM file");
    let mut tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(read(&pki.ca)));
    if client_cert {
        tls = tls.identity(Identity::from_pem(
            read(&pki.admin_cert),
            read(&pki.admin_key),
        ));
    }
    Channel::from_shared(https(host))
        .expect("url")
        .tls_config(tls)
        .expect("TLS config")
        .connect()
        .await
        .expect("a TLS connection")
}

#[tokio::test]
async fn a_client_with_the_ca_plays_over_tls_and_admin_calls_need_a_client_certificate() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pki = make_pki(dir.path());
    let host = tls_host(&pki).await;

    let mut catalog = CatalogClient::new(tls_channel(&host, &pki, false).await);
    let games = catalog
        .list_games(pb::ListGamesRequest {})
        .await
        .expect("the catalog over TLS")
        .into_inner();
    assert!(games.games.iter().any(|g| g.name == "focus"));

    // Plaintext to a TLS listener: no gRPC answer, whatever the transport
    // says about it.
    let plaintext = match Channel::from_shared(host.url.clone())
        .expect("url")
        .connect()
        .await
    {
        Ok(channel) => CatalogClient::new(channel)
            .list_games(pb::ListGamesRequest {})
            .await
            .is_ok(),
        Err(_) => false,
    };
    assert!(!plaintext, "a plaintext call was answered");

    let mut admin = AdminClient::new(tls_channel(&host, &pki, false).await);
    let refused = admin
        .list_plugins(as_admin(pb::ListPluginsRequest::default()))
        .await
        .expect_err("the admin token alone is not enough");
    assert_eq!(refused.code(), Code::Unauthenticated);
    assert_eq!(reason(&refused), "CLIENT_CERTIFICATE_REQUIRED");
    let mut admin = AdminClient::new(tls_channel(&host, &pki, true).await);
    let plugins = admin
        .list_plugins(as_admin(pb::ListPluginsRequest::default()))
        .await
        .expect("with the client certificate")
        .into_inner();
    assert!(plugins.plugins.iter().any(|p| p.game == "focus"));
}

#[tokio::test]
async fn the_cli_connects_over_tls_with_its_ca_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pki = make_pki(dir.path());
    let host = tls_host(&pki).await;
    let cli = |args: Vec<String>, env: Vec<(&'static str, String)>| {
        let url = https(&host);
        async move {
            tokio::process::Command::new(
                target_dir().join(format!("tabletop{}", std::env::consts::EXE_SUFFIX)),
            )
            .args(["--server", &url])
            .args(&args)
            .env_remove("TABLETOP_ADMIN_TOKEN")
            .env_remove("TABLETOP_CREDENTIAL")
            .env_remove("TABLETOP_CA_FILE")
            .envs(env)
            .output()
            .await
            .expect("run the CLI")
        }
    };
    let ca = pki.ca.display().to_string();
    let without_ca = cli(vec!["games".into()], vec![]).await;
    assert!(!without_ca.status.success());
    assert!(
        String::from_utf8_lossy(&without_ca.stderr).contains("--ca-file"),
        "the refusal says what is missing: {}",
        String::from_utf8_lossy(&without_ca.stderr)
    );
    let games = cli(vec!["--ca-file".into(), ca.clone(), "games".into()], vec![]).await;
    assert!(
        games.status.success(),
        "{}",
        String::from_utf8_lossy(&games.stderr)
    );
    assert!(String::from_utf8_lossy(&games.stdout).contains("focus"));
    // The CA file from the environment; a match created and shown.
    let created = cli(
        vec!["--json".into(), "new".into(), "focus".into()],
        vec![("TABLETOP_CA_FILE", ca.clone())],
    )
    .await;
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    let created: serde_json::Value =
        serde_json::from_slice(&created.stdout).expect("JSON from `new --json`");
    let match_id = created["match_id"]
        .as_str()
        .expect("a match id")
        .to_string();
    let shown = cli(
        vec!["--ca-file".into(), ca.clone(), "show".into(), match_id],
        vec![],
    )
    .await;
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );

    let admin_env = vec![("TABLETOP_ADMIN_TOKEN", ADMIN_TOKEN.to_string())];
    let refused = cli(
        vec!["--ca-file".into(), ca.clone(), "plugins".into()],
        admin_env.clone(),
    )
    .await;
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("client certificate"), "{stderr}");
    let plugins = cli(
        vec![
            "--ca-file".into(),
            ca,
            "--client-cert".into(),
            pki.admin_cert.display().to_string(),
            "--client-key".into(),
            pki.admin_key.display().to_string(),
            "plugins".into(),
        ],
        admin_env,
    )
    .await;
    assert!(
        plugins.status.success(),
        "{}",
        String::from_utf8_lossy(&plugins.stderr)
    );
    assert!(String::from_utf8_lossy(&plugins.stdout).contains("focus"));
}

/// A server whose certificate is itself a CA (a self-signed CA:TRUE
/// certificate, a common mistake): the CLI that trusts it still refuses the
/// connection, and says why, not a bare "transport error".
#[tokio::test]
async fn the_cli_names_why_a_server_certificate_that_is_a_ca_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut params =
        CertificateParams::new(vec!["localhost".into(), "127.0.0.1".into()]).expect("params");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(DnType::CommonName, "tabletop self-signed CA");
    let key = KeyPair::generate().expect("key");
    let cert = params.self_signed(&key).expect("certificate");
    let cert_path = write(dir.path(), "self.pem", cert.pem());
    let key_path = write(dir.path(), "self.key", key.serialize_pem());
    let host = Host::start_with(HostOptions {
        args: vec![
            "--tls-cert".into(),
            cert_path.display().to_string(),
            "--tls-key".into(),
            key_path.display().to_string(),
        ],
        ..Default::default()
    })
    .await;
    let output = tokio::process::Command::new(
        target_dir().join(format!("tabletop{}", std::env::consts::EXE_SUFFIX)),
    )
    .args(["--server", &https(&host), "--ca-file"])
    .arg(&cert_path)
    .arg("games")
    .env_remove("TABLETOP_CA_FILE")
    .output()
    .await
    .expect("run the CLI");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("invalid peer certificate") && stderr.contains("CaUsedAsEndEntity"),
        "the cause is named: {stderr}"
    );
}

/// A host on `database` serving TLS with the test PKI, trusting `peer_ca`
/// for the other hosts.
async fn tls_host_on(pki: &Pki, database: &str, peer_ca: &Path) -> Host {
    let more = vec![
        "--store".into(),
        database.to_string(),
        "--lease-ms".into(),
        "1000".into(),
        "--peer-ca".into(),
        peer_ca.display().to_string(),
    ];
    tls_host_with(pki, more).await
}

/// Hosts that serve TLS reach each other over TLS, checking each other's
/// certificates: a match made through one is played through the other, an
/// Admin call forwarded with the caller's client certificate checked where
/// it arrived is served by the holder, and a host that does not trust the
/// holder's certificate gets nothing through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hosts_that_serve_tls_forward_to_each_other_over_tls() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pki = make_pki(dir.path());
    let stranger_dir = dir.path().join("stranger");
    std::fs::create_dir(&stranger_dir).expect("a directory");
    let stranger = make_pki(&stranger_dir);
    let database = tokio::task::spawn_blocking(tabletop_test_postgres::database)
        .await
        .expect("a test database");
    let holder = tls_host_on(&pki, &database.url, &pki.ca).await;
    let other = tls_host_on(&pki, &database.url, &pki.ca).await;

    let mut made = MatchesClient::new(tls_channel(&holder, &pki, false).await);
    let (match_id, tokens) = create(&mut made, "focus", 2, 21).await;
    let start = spectator(&mut made, &match_id).await.version;
    let mut through_other = MatchesClient::new(tls_channel(&other, &pki, false).await);
    let played = play_first_legal(&mut through_other, &match_id, &tokens)
        .await
        .expect("a move through the other host, forwarded over TLS");
    assert_eq!(played.view.expect("a view").version, start + 1);

    // Each host advertises its https address (hosts read the others' rows
    // at most a second old).
    let mut catalog = CatalogClient::new(tls_channel(&other, &pki, false).await);
    let mut focus = pb::GameInfo::default();
    for _ in 0..30 {
        let games = catalog
            .list_games(pb::ListGamesRequest {})
            .await
            .expect("the catalog")
            .into_inner();
        focus = games
            .games
            .into_iter()
            .find(|g| g.name == "focus")
            .expect("focus");
        if focus.hosts.len() == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(focus.hosts.len(), 2, "{:?}", focus.hosts);
    assert!(
        focus.hosts.iter().all(|h| h.starts_with("https://")),
        "{:?}",
        focus.hosts
    );

    // An Admin call: its client certificate is checked on the connection it
    // arrived on, then the holder answers it.
    let lift = pb::LiftQuarantineRequest {
        admin_token: String::new(),
        match_id: match_id.clone(),
        plugin_version: String::new(),
    };
    let without = AdminClient::new(tls_channel(&other, &pki, false).await)
        .lift_quarantine(as_admin(lift.clone()))
        .await
        .expect_err("no client certificate");
    assert_eq!(reason(&without), "CLIENT_CERTIFICATE_REQUIRED");
    let answered = AdminClient::new(tls_channel(&other, &pki, true).await)
        .lift_quarantine(as_admin(lift))
        .await
        .expect_err("the match is not quarantined");
    assert_eq!(reason(&answered), "CONTROL_REFUSED", "{answered:?}");

    // A host that trusts another CA cannot forward to the holder: the move
    // is not made.
    let doubting = tls_host_on(&pki, &database.url, &stranger.ca).await;
    let mut through_doubter = MatchesClient::new(tls_channel(&doubting, &pki, false).await);
    let refused = play_first_legal(&mut through_doubter, &match_id, &tokens)
        .await
        .expect_err("the holder's certificate is not trusted");
    assert_eq!(refused.code(), Code::Unavailable, "{refused:?}");
    assert_eq!(
        spectator(&mut made, &match_id).await.version,
        start + 1,
        "nothing was played through the host that cannot check the holder"
    );
}
