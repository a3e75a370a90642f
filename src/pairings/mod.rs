//! Pairings (a pairing table, a FIDE TRF players file, a sheet map) + a sheet's file
//! name -> the game the sheet records: event, site, date, round, board, players,
//! ratings, FIDE ids and the result the pairings give ([`GameInfo`], the report's
//! `game` object).
//!
//! Which sheet is which game comes from the sheet map (`file,round,board`) when it
//! names the file, else from the file name ([`names::round_board`]: `r3b12`, `3-12`).
//! A sheet that names no game, or a game the pairings do not hold, gets no headers and
//! a warning: never a guess.

pub mod assign;
pub mod names;
pub mod table;
pub mod trf;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::report::{GameInfo, Source};
use table::Column;
pub use trf::{Trf, TrfPlayer};

/// Why pairings could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PairingsError {
    #[error("{}: cannot read: {reason}", path.display())]
    Read { path: PathBuf, reason: String },
    #[error("{}: {reason}", path.display())]
    Table { path: PathBuf, reason: String },
    #[error("{}: line {line}: {reason}", path.display())]
    Trf {
        path: PathBuf,
        line: usize,
        reason: String,
    },
}

/// One game of a pairing table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pairing {
    /// `None` when the table has no round column and no round was given.
    pub round: Option<u32>,
    pub board: u32,
    pub white: String,
    pub black: String,
    pub white_elo: Option<u32>,
    pub black_elo: Option<u32>,
    pub white_fide_id: Option<u64>,
    pub black_fide_id: Option<u64>,
    /// PGN result (`1-0`, `0-1`, `1/2-1/2`), when the table gives one.
    pub result: Option<String>,
    pub event: Option<String>,
    pub site: Option<String>,
    pub date: Option<String>,
}

/// A player name compared across files: lowercase, words split on spaces and
/// commas, joined by one space.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A result as pairing tables write it -> PGN (`1-0`, `0-1`, `1/2-1/2`); forfeits
/// (`+:-`, `+/-`) count as wins. Anything else (empty, `*`, a bye) is no result.
pub fn normalise_result(text: &str) -> Option<String> {
    crate::report::normalise_result(text).filter(|r| r != "*")
}

/// Pairings of a tournament, and what tells a sheet's game.
#[derive(Clone, Debug, Default)]
pub struct Pairings {
    pub games: Vec<Pairing>,
    /// Players with ratings, FIDE ids and per-round results (`--players`).
    pub players: Option<Trf>,
    /// File stem (lowercase) -> round and board (`--sheet-map`).
    pub map: HashMap<String, (u32, u32)>,
}

/// What the pairings make of one sheet.
#[derive(Clone, Debug, PartialEq)]
pub enum Lookup {
    /// The game, with its headers.
    Found(GameInfo),
    /// Neither the sheet map nor the file name names a round and board.
    Unnamed,
    /// The sheet names this round and board (the game holds only those), which no
    /// pairing holds.
    NoPairing {
        round: u32,
        board: u32,
        game: GameInfo,
    },
}

fn number<T: std::str::FromStr>(s: &str) -> Option<T> {
    s.trim().parse().ok()
}

impl Pairings {
    /// Reads a pairing table (see [`table::read_rows`]); `round` stands for a missing
    /// round column.
    ///
    /// # Errors
    /// An unreadable file, or no header row naming a board, a White and a Black column.
    pub fn load_table(path: &Path, round: Option<u32>) -> Result<Vec<Pairing>, PairingsError> {
        let rows = table::read_rows(path)?;
        Self::from_rows(&rows, round).map_err(|reason| PairingsError::Table {
            path: path.to_path_buf(),
            reason,
        })
    }

    /// Pairings from table rows: the first row that names a board, a White and a
    /// Black column is the header; rows without a board number are left out.
    ///
    /// # Errors
    /// No such header row.
    pub fn from_rows(rows: &[Vec<String>], round: Option<u32>) -> Result<Vec<Pairing>, String> {
        let header = rows
            .iter()
            .position(|r| {
                let cols = table::columns_of(r);
                [Column::Board, Column::White, Column::Black]
                    .iter()
                    .all(|c| cols.contains(&Some(*c)))
            })
            .ok_or("no header row naming the board, White and Black columns (e.g. `Board,White,Black`; see the README for the names read)")?;
        let mut at: BTreeMap<Column, usize> = BTreeMap::new();
        for (i, col) in table::columns_of(&rows[header]).into_iter().enumerate() {
            if let Some(col) = col {
                at.entry(col).or_insert(i);
            }
        }
        let mut games = Vec::new();
        for row in &rows[header + 1..] {
            let get = |c: Column| {
                at.get(&c)
                    .and_then(|&i| row.get(i))
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
            };
            let Some(board) = get(Column::Board).and_then(|b| number(&b)) else {
                continue;
            };
            games.push(Pairing {
                round: get(Column::Round).and_then(|r| number(&r)).or(round),
                board,
                white: get(Column::White).unwrap_or_default(),
                black: get(Column::Black).unwrap_or_default(),
                white_elo: get(Column::WhiteElo)
                    .and_then(|e| number(&e))
                    .filter(|&e| e > 0),
                black_elo: get(Column::BlackElo)
                    .and_then(|e| number(&e))
                    .filter(|&e| e > 0),
                white_fide_id: get(Column::WhiteFideId)
                    .and_then(|e| number(&e))
                    .filter(|&e| e > 0),
                black_fide_id: get(Column::BlackFideId)
                    .and_then(|e| number(&e))
                    .filter(|&e| e > 0),
                result: get(Column::Result).and_then(|r| normalise_result(&r)),
                event: get(Column::Event),
                site: get(Column::Site),
                date: get(Column::Date),
            });
        }
        Ok(games)
    }

    /// Reads a sheet map: a table with `file`, `round` and `board` columns.
    ///
    /// # Errors
    /// An unreadable file, or no such header.
    pub fn load_map(path: &Path) -> Result<HashMap<String, (u32, u32)>, PairingsError> {
        let rows = table::read_rows(path)?;
        let err = |reason: &str| PairingsError::Table {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        };
        let header = rows.first().ok_or_else(|| err("empty sheet map"))?;
        let find = |names: &[&str]| {
            header
                .iter()
                .position(|h| names.contains(&h.trim().to_lowercase().as_str()))
        };
        let (Some(f), Some(r), Some(b)) = (
            find(&["file", "sheet", "image", "datei", "plik", "файл"]),
            header
                .iter()
                .position(|h| table::column_of(h) == Some(Column::Round)),
            header
                .iter()
                .position(|h| table::column_of(h) == Some(Column::Board)),
        ) else {
            return Err(err("a sheet map needs the columns file, round and board"));
        };
        let mut map = HashMap::new();
        for row in &rows[1..] {
            let (Some(file), Some(round), Some(board)) = (
                row.get(f),
                row.get(r).and_then(|s| number(s)),
                row.get(b).and_then(|s| number(s)),
            ) else {
                continue;
            };
            map.insert(stem_key(file), (round, board));
        }
        Ok(map)
    }

    /// The round and board a sheet records: from the sheet map, else its file name.
    /// `names` are the sheet's stems or paths (output stem first, then the files).
    pub fn round_board(&self, names: &[&str]) -> Option<(u32, u32)> {
        names
            .iter()
            .find_map(|n| self.map.get(&stem_key(n)).copied())
            .or_else(|| names.iter().find_map(|n| names::round_board(&stem_key(n))))
    }

    /// The game of the sheet called `names` (see [`Pairings::round_board`]).
    pub fn game_for(&self, names: &[&str]) -> Lookup {
        let Some((round, board)) = self.round_board(names) else {
            return Lookup::Unnamed;
        };
        // (The sheet map names a file by its stem, as `round_board` looks it up.)
        let named_by = if names.iter().any(|n| self.map.contains_key(&stem_key(n))) {
            Source::SheetMap
        } else {
            Source::FileName
        };
        let mut game = GameInfo {
            board: Some(board),
            ..GameInfo::default()
        };
        game.set("round", round.to_string(), named_by);
        game.from.insert("board".into(), named_by);
        if !self.games.is_empty() {
            let Some(p) = self
                .games
                .iter()
                .find(|p| p.board == board && p.round.is_none_or(|r| r == round))
            else {
                return Lookup::NoPairing { round, board, game };
            };
            self.fill(&mut game, Some(p), Some(round));
        } else {
            self.fill(&mut game, None, Some(round));
        }
        Lookup::Found(game)
    }

    /// The game of pairing `index` (its round and board said to come from `named_by`;
    /// a pairing without a round takes `round`, the one the sheet names), with its
    /// headers as [`Pairings::game_for`] gives them.
    pub fn game_of(&self, index: usize, round: Option<u32>, named_by: Source) -> GameInfo {
        let p = &self.games[index];
        let round = p.round.or(round);
        let mut game = GameInfo {
            board: Some(p.board),
            ..GameInfo::default()
        };
        if let Some(r) = round {
            game.set("round", r.to_string(), named_by);
        }
        game.from.insert("board".into(), named_by);
        self.fill(&mut game, Some(p), round);
        game
    }

    /// Fills `game` from the pairing `p` (players, ratings, result, event...), then
    /// what that left unknown from the players file.
    fn fill(&self, game: &mut GameInfo, p: Option<&Pairing>, round: Option<u32>) {
        if let Some(p) = p {
            let number = |n: Option<u64>| n.map(|n| n.to_string());
            let given = [
                ("white", Some(p.white.clone())),
                ("black", Some(p.black.clone())),
                ("white_elo", number(p.white_elo.map(u64::from))),
                ("black_elo", number(p.black_elo.map(u64::from))),
                ("white_fide_id", number(p.white_fide_id)),
                ("black_fide_id", number(p.black_fide_id)),
                ("result", p.result.clone()),
                ("event", p.event.clone()),
                ("site", p.site.clone()),
                ("date", p.date.clone()),
            ];
            for (field, value) in given {
                if let Some(v) = value.filter(|v| !v.is_empty()) {
                    game.set(field, v, Source::Pairings);
                }
            }
        }
        if let Some(trf) = &self.players {
            // What the pairings left unknown.
            let white = game.white.as_deref().and_then(|n| trf.player(n));
            let black = game.black.as_deref().and_then(|n| trf.player(n));
            let known = [
                ("event", trf.event.clone()),
                ("site", trf.site.clone()),
                ("date", trf.date.clone()),
                (
                    "white_elo",
                    white.and_then(|w| w.rating).map(|r| r.to_string()),
                ),
                (
                    "white_fide_id",
                    white.and_then(|w| w.fide_id).map(|i| i.to_string()),
                ),
                (
                    "result",
                    white
                        .zip(round)
                        .and_then(|(w, r)| trf.result(w, r))
                        .map(str::to_string),
                ),
                (
                    "black_elo",
                    black.and_then(|b| b.rating).map(|r| r.to_string()),
                ),
                (
                    "black_fide_id",
                    black.and_then(|b| b.fide_id).map(|i| i.to_string()),
                ),
            ];
            for (field, value) in known {
                if let Some(v) = value
                    && game.field_mut(field).is_some_and(|slot| slot.is_none())
                {
                    game.set(field, v, Source::Players);
                }
            }
        }
    }
}

/// A file name or path as the sheet map and file names compare it: its stem,
/// lowercase.
fn stem_key(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let base = base.split('#').next().unwrap_or(base);
    let stem = match base.rsplit_once('.') {
        Some((s, ext))
            if !s.is_empty()
                && ext.len() <= 4
                && ext.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            s
        }
        _ => base,
    };
    stem.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<Vec<String>> {
        table::parse_csv(text)
    }

    #[test]
    fn results_as_tables_write_them_and_an_unfinished_game_is_none() {
        // (The forms themselves: `report::normalise_result`.)
        assert_eq!(normalise_result("0 : 1").as_deref(), Some("0-1"));
        assert_eq!(normalise_result("*"), None);
        assert_eq!(normalise_result(""), None);
    }

    #[test]
    fn a_sheet_finds_its_pairing_by_file_name_or_map() {
        let games = Pairings::from_rows(
            &rows("Event: Club Open\nRd.;Bo.;Weiß;Elo;Schwarz;Elo S;Erg.\n3;12;Müller, Anna;2101;Kowalski, Jan;2512;0-1\n3;13;A;;B;;"),
            None,
        )
        .unwrap();
        assert_eq!(games.len(), 2);
        let mut pairings = Pairings {
            games,
            ..Pairings::default()
        };
        let Lookup::Found(game) = pairings.game_for(&["r3b12_w", "scans/r3b12_w.jpg"]) else {
            panic!("r3b12 found");
        };
        assert_eq!(game.white.as_deref(), Some("Müller, Anna"));
        assert_eq!(game.black_elo.as_deref(), Some("2512"));
        assert_eq!(game.result.as_deref(), Some("0-1"));
        assert_eq!(game.round.as_deref(), Some("3"));
        assert_eq!(game.board, Some(12));
        assert_eq!(game.from["white"], Source::Pairings);
        let Lookup::NoPairing {
            round: 4,
            board: 12,
            game,
        } = pairings.game_for(&["r4b12"])
        else {
            panic!("r4b12 is in no pairing");
        };
        assert_eq!((game.round_tag(), game.white), ("4.12".to_string(), None));
        assert_eq!(pairings.game_for(&["scan0001"]), Lookup::Unnamed);
        // The map names files whose names do not.
        pairings.map.insert(stem_key("in/scan0001.JPG"), (3, 13));
        let Lookup::Found(game) = pairings.game_for(&["scan0001"]) else {
            panic!("mapped");
        };
        assert_eq!(
            (game.white.as_deref(), game.result.as_deref()),
            (Some("A"), None)
        );
    }

    #[test]
    fn a_table_without_board_white_and_black_is_refused() {
        assert!(Pairings::from_rows(&rows("Name;Rating\nA;2000"), None).is_err());
        // No round column: the round given stands for it.
        let g = Pairings::from_rows(&rows("Board,White,Black\n1,A,B"), Some(5)).unwrap();
        assert_eq!(g[0].round, Some(5));
    }
}
