//! The desk's pages: the round (games and the scanner's queue, refreshed from the
//! API) and one game (the review page of `scoresheet review`, its sheet, cells and
//! board, keyboard as there; a correction is posted to the API and the page reloads
//! with the game re-read around it).

use std::collections::HashMap;

use scoresheet::{PageParams, ReviewSheet, SheetReport, reload_pages, review_html};

use super::store::{StoreError, lock};

/// The round page.
pub const INDEX: &str = include_str!("index.html");

/// What the game page adds to the review page: corrections go to the desk.
const DESK_SCRIPT: &str = include_str!("desk.js");

/// Game pages already made, by stem: (version, HTML).
#[derive(Default)]
pub struct Pages {
    made: std::sync::Mutex<HashMap<String, (String, String)>>,
}

impl Pages {
    /// The review page of one game at `version` (made once per version).
    ///
    /// # Errors
    /// The sheet image cannot be read again.
    pub fn game(
        &self,
        stem: &str,
        report: &SheetReport,
        version: &str,
    ) -> Result<String, StoreError> {
        if let Some((v, html)) = lock(&self.made).get(stem)
            && v == version
        {
            return Ok(html.clone());
        }
        let pages = reload_pages(report, &PageParams::default())
            .map_err(|e| StoreError::Failed(format!("{stem}: cannot show the sheet: {e}")))?;
        let sheet = ReviewSheet {
            report_name: format!("{stem}.json"),
            report,
            pages: pages.iter().map(|p| &p.image).collect(),
        };
        let html = review_html(&format!("desk:{stem}"), &[sheet]);
        let desk = serde_json::json!({ "stem": stem, "version": version }).to_string();
        let script = format!(
            "<script>\nconst DESK = {};\n{DESK_SCRIPT}</script>\n</body>",
            desk.replace("</", "<\\/")
        );
        let html = match html.rfind("</body>") {
            Some(at) => format!("{}{script}{}", &html[..at], &html[at + "</body>".len()..]),
            None => html + &script,
        };
        lock(&self.made).insert(stem.to_string(), (version.to_string(), html.clone()));
        Ok(html)
    }
}
