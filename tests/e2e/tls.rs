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
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions, as_admin, target_dir};
use tonic::Code;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

use crate::support::reason;

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

async fn tls_host(pki: &Pki) -> Host {
    let path = |p: &PathBuf| p.display().to_string();
    Host::start_with(HostOptions {
        args: vec![
            "--tls-cert".into(),
            path(&pki.server_cert),
            "--tls-key".into(),
            path(&pki.server_key),
            "--tls-client-ca".into(),
            path(&pki.ca),
        ],
        ..Default::default()
    })
    .await
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
