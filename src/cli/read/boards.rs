//! `read --pairings`, games placed on their boards by what their sheets say: the
//! reports no file name or sheet map placed are held until the batch (and its joins
//! by content) is read, then matched to the round's free pairings at once
//! ([`scoresheet::pairings::assign::assign`]), each board taking at most one game.

use scoresheet::{Assignment, FieldRead, Pairings, SheetReport, Source, assign};

use super::super::diag;
use super::jobs::Outcome;

/// Whether no file name, sheet map or pairing has given the report's game: its
/// headers, if any, come from the sheet itself (or a human, or a mate).
fn unplaced(report: &SheetReport) -> bool {
    report.game.as_ref().is_none_or(|g| {
        g.from
            .values()
            .all(|s| matches!(s, Source::Sheet | Source::Mate | Source::Human))
    })
}

/// Places the held reports that have no game yet (no name or map placed them) on
/// the pairings their header fields fit, says each placement on stderr, and warns of
/// each game placed nowhere (naming its files) and of two games that fit one board.
pub(super) fn place_by_fields(outcomes: &mut [Outcome], pairings: &Pairings) {
    if pairings.games.is_empty() {
        return;
    }
    let claimed: Vec<(u32, u32)> = outcomes
        .iter()
        .flat_map(|o| o.claims.iter().map(|c| c.0))
        .collect();
    let taken: Vec<usize> = (0..pairings.games.len())
        .filter(|&i| {
            let p = &pairings.games[i];
            claimed
                .iter()
                .any(|&(r, b)| b == p.board && p.round.is_none_or(|pr| pr == r))
        })
        .collect();
    // (outcome, held report) of each game to place.
    let at: Vec<(usize, usize)> = outcomes
        .iter()
        .enumerate()
        .flat_map(|(i, o)| {
            o.held
                .iter()
                .enumerate()
                .filter(|(_, (_, r))| unplaced(r))
                .map(move |(k, _)| (i, k))
        })
        .collect();
    if at.is_empty() {
        return;
    }
    let fields: Vec<&[FieldRead]> = at
        .iter()
        .map(|&(i, k)| outcomes[i].held[k].1.fields.as_slice())
        .collect();
    let Assignment {
        placed,
        contested,
        unmatched,
    } = assign(&fields, &pairings.games, &taken);
    let source = |g: usize, outcomes: &[Outcome]| {
        let (i, k) = at[g];
        outcomes[i].held[k].1.source.clone()
    };
    let where_ = |p: usize| {
        let p = &pairings.games[p];
        match p.round {
            Some(r) => format!("round {r} board {}", p.board),
            None => format!("board {}", p.board),
        }
    };
    for (&(i, k), place) in at.iter().zip(&placed) {
        let Some(place) = place else { continue };
        let report = &mut outcomes[i].held[k].1;
        // The round a pairing without one takes: the round written, if read.
        let round = report
            .fields
            .iter()
            .find(|f| f.field == "round")
            .and_then(|f| f.value.as_deref()?.trim().parse().ok());
        let game = pairings.game_of(place.pairing, round, Source::Sheet);
        diag(format!(
            "{}: {} by what its sheets say ({})",
            report.source,
            where_(place.pairing),
            place.by.join(", ")
        ));
        let claim = game
            .round
            .as_deref()
            .and_then(|r| r.parse().ok())
            .zip(game.board);
        report.set_game(game);
        // A human's header corrections still win over the pairing.
        report.apply_header_corrections();
        if let Some(c) = claim {
            let s = report.source.clone();
            outcomes[i].claims.push((c, s));
        }
    }
    for (g, p, winner) in contested {
        diag(format!(
            "warning: {} and {} both fit {}; {} placed there, {} left without headers",
            source(g, outcomes),
            source(winner, outcomes),
            where_(p),
            source(winner, outcomes),
            source(g, outcomes)
        ));
    }
    for g in unmatched {
        diag(format!(
            "{}: warning: neither its file name (r3b12, 3-12), the sheet map nor what its sheets say (board, round, names) matches a pairing; headers left unknown",
            source(g, outcomes)
        ));
    }
}
