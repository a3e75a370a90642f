//! A FIDE Tournament Report File (TRF-16) -> its players: name, title, rating,
//! federation, FIDE id and, per round, opponent, colour and result.
//!
//! Layout from FIDE's "TRF16" description (FIDE Handbook, C.04 Annex 2, "Data
//! Exchange Format", agreed for the Tournament Rating Report File): one record per
//! line, its kind in columns 1-3. Player records `001` are fixed-width (1-based,
//! inclusive columns): 5-8 starting rank, 10 sex, 11-13 title, 15-47 name, 49-52
//! FIDE rating, 54-56 federation, 58-68 FIDE id, 70-79 birth date, 81-84 points,
//! 86-89 rank; then one 10-column block per round from column 92: 92-95 the
//! opponent's starting rank (blank or `0000` for none), 97 colour (`w`, `b`, `-`),
//! 99 result (`1` `0` `=` won / lost / drawn, `+` `-` by forfeit, `W` `D` `L` not
//! rated, `H` `F` `U` `Z` byes). Tournament records: `012` name, `022` city, `042`
//! start date (from column 5).

use std::path::Path;

use super::PairingsError;

/// One round's game of a player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfRound {
    /// Starting rank of the opponent (`None`: no opponent, a bye).
    pub opponent: Option<u32>,
    /// `'w'`, `'b'` or `'-'`.
    pub colour: char,
    /// The result code as written (`1`, `0`, `=`, `+`, `-`, `W`, `D`, `L`, byes ...).
    pub result: char,
}

/// A player record (`001`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfPlayer {
    pub rank: u32,
    pub title: String,
    pub name: String,
    pub rating: Option<u32>,
    pub federation: String,
    pub fide_id: Option<u64>,
    /// Round 1 first.
    pub rounds: Vec<TrfRound>,
}

/// A tournament report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trf {
    pub event: Option<String>,
    pub site: Option<String>,
    pub date: Option<String>,
    pub players: Vec<TrfPlayer>,
}

/// 1-based inclusive columns `from..=to` of `line`, trimmed (empty past its end).
fn field(line: &[char], from: usize, to: usize) -> String {
    let start = (from - 1).min(line.len());
    let end = to.min(line.len());
    line[start..end]
        .iter()
        .collect::<String>()
        .trim()
        .to_string()
}

impl Trf {
    /// Reads a TRF file.
    ///
    /// # Errors
    /// An unreadable file, or a player record whose rank is not a number.
    pub fn load(path: &Path) -> Result<Trf, PairingsError> {
        let bytes = std::fs::read(path).map_err(|e| PairingsError::Read {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        // TRF files are often Latin-1: keep every byte as a character then.
        let text = String::from_utf8(bytes.clone())
            .unwrap_or_else(|_| bytes.iter().map(|&b| b as char).collect());
        Trf::parse(&text).map_err(|(line, reason)| PairingsError::Trf {
            path: path.to_path_buf(),
            line,
            reason,
        })
    }

    /// Parses TRF text; an error gives the line number (1-based) and the reason.
    ///
    /// # Errors
    /// A player record whose starting rank is not a number.
    pub fn parse(text: &str) -> Result<Trf, (usize, String)> {
        let mut trf = Trf::default();
        for (n, raw) in text.lines().enumerate() {
            let line: Vec<char> = raw.trim_end().chars().collect();
            let kind = field(&line, 1, 3);
            let rest = || field(&line, 5, line.len().max(5));
            match kind.as_str() {
                "012" => trf.event = Some(rest()).filter(|s| !s.is_empty()),
                "022" => trf.site = Some(rest()).filter(|s| !s.is_empty()),
                "042" => trf.date = Some(rest()).filter(|s| !s.is_empty()),
                "001" => {
                    let rank = field(&line, 5, 8).parse::<u32>().map_err(|_| {
                        (
                            n + 1,
                            "player record without a starting rank in columns 5-8".to_string(),
                        )
                    })?;
                    let mut rounds = Vec::new();
                    let mut at = 92;
                    while at <= line.len() {
                        let opponent = field(&line, at, at + 3)
                            .parse::<u32>()
                            .ok()
                            .filter(|&o| o > 0);
                        let colour = field(&line, at + 5, at + 5).chars().next().unwrap_or('-');
                        let result = field(&line, at + 7, at + 7).chars().next().unwrap_or(' ');
                        rounds.push(TrfRound {
                            opponent,
                            colour,
                            result,
                        });
                        at += 10;
                    }
                    trf.players.push(TrfPlayer {
                        rank,
                        title: field(&line, 11, 13),
                        name: field(&line, 15, 47),
                        rating: field(&line, 49, 52).parse().ok().filter(|&r| r > 0),
                        federation: field(&line, 54, 56),
                        fide_id: field(&line, 58, 68).parse().ok().filter(|&i| i > 0),
                        rounds,
                    });
                }
                _ => {}
            }
        }
        Ok(trf)
    }

    /// The player of this name (compared as [`super::name_key`] does).
    pub fn player(&self, name: &str) -> Option<&TrfPlayer> {
        let key = super::name_key(name);
        self.players
            .iter()
            .find(|p| super::name_key(&p.name) == key)
    }

    /// The player of this starting rank.
    pub fn by_rank(&self, rank: u32) -> Option<&TrfPlayer> {
        self.players.iter().find(|p| p.rank == rank)
    }

    /// The result (PGN) of the game of round `round` (1-based) that `white` played
    /// with White, from White's record.
    pub fn result(&self, white: &TrfPlayer, round: u32) -> Option<&'static str> {
        let r = white.rounds.get(round.checked_sub(1)? as usize)?;
        if r.colour != 'w' {
            return None;
        }
        match r.result {
            '1' | '+' | 'W' => Some("1-0"),
            '0' | '-' | 'L' => Some("0-1"),
            '=' | 'D' => Some("1/2-1/2"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three players, two rounds, written column by column from FIDE's TRF16
    /// description (see the module doc).
    pub(crate) fn fixture() -> String {
        let player = |rank: u32,
                      title: &str,
                      name: &str,
                      rating: u32,
                      fed: &str,
                      id: u64,
                      rounds: &[(&str, char, char)]| {
            let mut l = format!(
                "001 {rank:>4} m{title:<3} {name:<33} {rating:>4} {fed:<3} {id:>11} 1990/01/01 {:>4} {:>4}  ",
                "1.0", rank
            );
            for (opp, colour, result) in rounds {
                l.push_str(&format!("{opp:>4} {colour} {result}  "));
            }
            l.trim_end().to_string()
        };
        [
            "012 Autumn Open 2026".to_string(),
            "022 Gdańsk".to_string(),
            "042 2026/10/03".to_string(),
            player(
                1,
                "GM",
                "Kowalski, Jan",
                2512,
                "POL",
                1_100_123,
                &[("3", 'w', '1'), ("2", 'b', '=')],
            ),
            player(
                2,
                "",
                "Müller, Anna",
                2101,
                "GER",
                4_600_042,
                &[("0000", '-', 'H'), ("1", 'w', '=')],
            ),
            player(
                3,
                "FM",
                "Иванов, Пётр",
                2290,
                "RUS",
                24_100_000,
                &[("1", 'b', '0'), ("0000", '-', 'U')],
            ),
        ]
        .join("\n")
    }

    #[test]
    fn player_records_give_name_rating_id_and_rounds() {
        let trf = Trf::parse(&fixture()).unwrap();
        assert_eq!(trf.event.as_deref(), Some("Autumn Open 2026"));
        assert_eq!(trf.site.as_deref(), Some("Gdańsk"));
        assert_eq!(trf.players.len(), 3);
        let jan = &trf.players[0];
        assert_eq!(
            (
                jan.rank,
                jan.title.as_str(),
                jan.name.as_str(),
                jan.rating,
                jan.federation.as_str(),
                jan.fide_id
            ),
            (1, "GM", "Kowalski, Jan", Some(2512), "POL", Some(1_100_123))
        );
        assert_eq!(
            jan.rounds,
            [
                TrfRound {
                    opponent: Some(3),
                    colour: 'w',
                    result: '1'
                },
                TrfRound {
                    opponent: Some(2),
                    colour: 'b',
                    result: '='
                }
            ]
        );
        let anna = trf.player("MÜLLER,  anna").unwrap();
        assert_eq!(anna.rounds[0].opponent, None);
        assert_eq!(trf.result(jan, 1), Some("1-0"));
        assert_eq!(trf.result(anna, 2), Some("1/2-1/2"));
        assert_eq!(trf.result(jan, 2), None, "Jan had Black in round 2");
        assert_eq!(
            trf.player("Иванов, Пётр").unwrap().fide_id,
            Some(24_100_000)
        );
    }

    #[test]
    fn a_player_record_without_a_rank_is_refused_with_its_line() {
        let err = Trf::parse("012 X\n001 abcd m    Nobody").unwrap_err();
        assert_eq!(err.0, 2);
    }
}
