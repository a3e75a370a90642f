//! A pairing table file (CSV, `.xlsx`, `.ods`) -> rows of named cells: the header row
//! found by its column names, in English, German, Polish or Russian.

use std::path::Path;

use super::PairingsError;

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Column {
    Round,
    Board,
    White,
    Black,
    WhiteElo,
    BlackElo,
    WhiteFideId,
    BlackFideId,
    Result,
    Event,
    Site,
    Date,
}

/// Header names of each column (compared lowercase, with spaces, dots, `_` and `-`
/// dropped): English, German (Swiss-Manager's exports), Polish and Russian.
const NAMES: &[(Column, &[&str])] = &[
    (
        Column::Round,
        &["round", "rd", "rnd", "runde", "runda", "тур"],
    ),
    (
        Column::Board,
        &[
            "board",
            "bo",
            "bd",
            "table",
            "brett",
            "br",
            "tisch",
            "szachownica",
            "stół",
            "stol",
            "доска",
            "стол",
        ],
    ),
    (
        Column::White,
        &[
            "white",
            "whiteplayer",
            "weiß",
            "weiss",
            "weis",
            "biały",
            "bialy",
            "białe",
            "biale",
            "белые",
            "белыми",
        ],
    ),
    (
        Column::Black,
        &[
            "black",
            "blackplayer",
            "schwarz",
            "czarny",
            "czarne",
            "чёрные",
            "черные",
            "черными",
            "чёрными",
        ],
    ),
    (
        Column::WhiteElo,
        &[
            "whiteelo",
            "whiterating",
            "whitertg",
            "elow",
            "ratingw",
            "rtgw",
            "welo",
            "wrtg",
            "eloweiß",
            "eloweiss",
            "rankingbiały",
            "рейтингбелых",
        ],
    ),
    (
        Column::BlackElo,
        &[
            "blackelo",
            "blackrating",
            "blackrtg",
            "elob",
            "elos",
            "ratingb",
            "rtgb",
            "belo",
            "brtg",
            "eloschwarz",
            "rankingczarny",
            "рейтингчёрных",
            "рейтингчерных",
        ],
    ),
    (
        Column::WhiteFideId,
        &[
            "whitefideid",
            "fideidw",
            "whiteid",
            "wfideid",
            "fideidweiß",
            "fideidweiss",
            "fideidbiały",
        ],
    ),
    (
        Column::BlackFideId,
        &[
            "blackfideid",
            "fideidb",
            "blackid",
            "bfideid",
            "fideidschwarz",
            "fideidczarny",
        ],
    ),
    (
        Column::Result,
        &[
            "result",
            "res",
            "score",
            "erg",
            "ergebnis",
            "wynik",
            "результат",
            "рез",
        ],
    ),
    (
        Column::Event,
        &[
            "event",
            "tournament",
            "turnier",
            "turniej",
            "турнир",
            "соревнование",
        ],
    ),
    (
        Column::Site,
        &["site", "place", "city", "ort", "miejsce", "место", "город"],
    ),
    (Column::Date, &["date", "datum", "data", "дата"]),
];

/// The column a header cell names, if any.
pub fn column_of(header: &str) -> Option<Column> {
    let key = key_of(header);
    NAMES
        .iter()
        .find(|(_, names)| names.contains(&key.as_str()))
        .map(|(c, _)| *c)
}

/// Header names of a rating or a FIDE id that say no side (`Elo`, `Rtg`, `FIDE id`):
/// the column is the side of the player column left of it.
const RATING: &[&str] = &[
    "elo",
    "rtg",
    "rating",
    "fideelo",
    "ranking",
    "рейтинг",
    "eloint",
];
const FIDE_ID: &[&str] = &["fideid", "fide", "id", "fideno", "idfide"];

/// The column of each header cell: by name, and a rating or FIDE id that names no
/// side by the player column before it (`Weiß | Elo | Schwarz | Elo`).
pub fn columns_of(header: &[String]) -> Vec<Option<Column>> {
    let mut side = None;
    header
        .iter()
        .map(|h| {
            let col = column_of(h);
            if matches!(col, Some(Column::White | Column::Black)) {
                side = col;
            }
            col.or_else(|| {
                let key = key_of(h);
                let white = side == Some(Column::White);
                match side {
                    Some(_) if RATING.contains(&key.as_str()) => Some(if white {
                        Column::WhiteElo
                    } else {
                        Column::BlackElo
                    }),
                    Some(_) if FIDE_ID.contains(&key.as_str()) => Some(if white {
                        Column::WhiteFideId
                    } else {
                        Column::BlackFideId
                    }),
                    _ => None,
                }
            })
        })
        .collect()
}

fn key_of(header: &str) -> String {
    header
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| !matches!(c, ' ' | '.' | '_' | '-' | ':' | '\u{a0}'))
        .collect()
}

/// The cells of a table, by row; the header row first.
pub type Rows = Vec<Vec<String>>;

/// Reads the rows of a pairing table: CSV (comma, semicolon or tab, `"` quotes) or a
/// spreadsheet's first sheet (`.xlsx`, `.xlsm`, `.xls`, `.ods`).
///
/// # Errors
/// An unreadable file, or a spreadsheet the reader cannot open.
pub fn read_rows(path: &Path) -> Result<Rows, PairingsError> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if matches!(ext.as_str(), "xlsx" | "xlsm" | "xls" | "xlsb" | "ods") {
        return read_spreadsheet(path);
    }
    let bytes = std::fs::read(path).map_err(|e| PairingsError::Read {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let text = String::from_utf8(bytes).map_err(|_| PairingsError::Read {
        path: path.to_path_buf(),
        reason: "not UTF-8 text (save the table as UTF-8 CSV, or give the .xlsx / .ods)".into(),
    })?;
    Ok(parse_csv(text.trim_start_matches('\u{feff}')))
}

fn read_spreadsheet(path: &Path) -> Result<Rows, PairingsError> {
    use calamine::{Data, Reader, open_workbook_auto};
    let err = |reason: String| PairingsError::Read {
        path: path.to_path_buf(),
        reason,
    };
    let mut book = open_workbook_auto(path).map_err(|e| err(e.to_string()))?;
    let first = book
        .sheet_names()
        .first()
        .cloned()
        .ok_or_else(|| err("the spreadsheet has no sheets".into()))?;
    let range = book
        .worksheet_range(&first)
        .map_err(|e| err(e.to_string()))?;
    Ok(range
        .rows()
        .map(|row| {
            row.iter()
                .map(|c| match c {
                    // Whole numbers (boards, ratings, ids) without a decimal point.
                    Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => {
                        format!("{}", *f as i64)
                    }
                    Data::Empty => String::new(),
                    other => other.to_string(),
                })
                .collect()
        })
        .collect())
}

/// Splits CSV text into rows: the delimiter is the one of `,`, `;` and tab that one of
/// the first lines (a title line may come before the header) holds most of; `"`
/// quotes a cell (`""` inside is one quote).
pub fn parse_csv(text: &str) -> Rows {
    let most = |d: char| {
        text.lines()
            .take(20)
            .map(|l| l.matches(d).count())
            .max()
            .unwrap_or(0)
    };
    let delim = [',', ';', '\t']
        .into_iter()
        .rev()
        .max_by_key(|d| most(*d))
        .unwrap_or(',');
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            c if c == delim && !quoted => row.push(std::mem::take(&mut cell)),
            '\r' if !quoted => {}
            '\n' if !quoted => {
                row.push(std::mem::take(&mut cell));
                if row.iter().any(|c| !c.trim().is_empty()) {
                    rows.push(std::mem::take(&mut row));
                } else {
                    row.clear();
                }
            }
            c => cell.push(c),
        }
    }
    row.push(cell);
    if row.iter().any(|c| !c.trim().is_empty()) {
        rows.push(row);
    }
    for r in &mut rows {
        for c in r.iter_mut() {
            *c = c.trim().to_string();
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_in_four_languages_name_their_columns() {
        let cases = [
            ("Round", Some(Column::Round)),
            ("Bo.", Some(Column::Board)),
            ("Br.", Some(Column::Board)),
            ("Weiß", Some(Column::White)),
            ("Czarne", Some(Column::Black)),
            ("Белые", Some(Column::White)),
            ("white_elo", Some(Column::WhiteElo)),
            ("Erg.", Some(Column::Result)),
            ("Wynik", Some(Column::Result)),
            ("White FIDE id", Some(Column::WhiteFideId)),
            ("Notes", None),
        ];
        for (header, want) in cases {
            assert_eq!(column_of(header), want, "{header}");
        }
    }

    #[test]
    fn a_rating_that_names_no_side_is_the_player_s_before_it() {
        let header: Vec<String> = ["Br.", "Weiß", "Elo", "FIDE-ID", "Schwarz", "Elo", "Erg."]
            .map(String::from)
            .to_vec();
        assert_eq!(
            columns_of(&header),
            [
                Some(Column::Board),
                Some(Column::White),
                Some(Column::WhiteElo),
                Some(Column::WhiteFideId),
                Some(Column::Black),
                Some(Column::BlackElo),
                Some(Column::Result)
            ]
        );
    }

    #[test]
    fn csv_takes_the_delimiter_of_its_header_and_quotes() {
        let rows = parse_csv("Bo.;White;Black\r\n1;\"Smith; John\";\"Doe \"\"J\"\"\"\n\n2;A;B");
        assert_eq!(
            rows,
            [
                vec!["Bo.", "White", "Black"],
                vec!["1", "Smith; John", "Doe \"J\""],
                vec!["2", "A", "B"]
            ]
        );
    }
}
