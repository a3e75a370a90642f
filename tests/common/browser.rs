//! Whether a test in real Chromium can run here, for the test binaries that drive one
//! (the review page's, the desk's).

use std::path::Path;
use std::process::Command;

/// Whether the browser test can run here: node, playwright-core (`npm ci` in
/// tests/browser) and Chromium. CI sets SCORESHEET_REQUIRE_BROWSER=1 so that a
/// missing piece fails there instead of skipping.
pub fn browser_ready() -> bool {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let playwright = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/browser/node_modules/playwright-core")
        .is_dir();
    let ready = node && playwright && Path::new(&chromium).exists();
    if !ready {
        let msg = format!(
            "browser test needs node ({node}), tests/browser/node_modules/playwright-core ({playwright}, \
             run `npm ci` there) and Chromium at {chromium}"
        );
        assert!(
            std::env::var("SCORESHEET_REQUIRE_BROWSER").is_err(),
            "{msg}"
        );
        eprintln!("skipping: {msg}");
    }
    ready
}
