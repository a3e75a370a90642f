//! (position, legal move, notation) -> written forms: every text a player may put on a
//! sheet for that move (short, over- and under-disambiguated, long, castling with
//! zeros or letters, promotions, `e.p.`, capture and check marks), and the natural
//! display form of the move ([`render`]).

use shakmaty::{Chess, Move};

use super::Notation;
use super::letters::Script;

mod bodies;
mod shape;

#[cfg(any(test, feature = "internals"))]
pub use bodies::Body;
pub use bodies::{ANNOTATIONS, Mark, Style, bodies, check_marks, for_each_body};
pub use shape::{Check, MoveShape, Shared};

/// One complete written form: body plus check mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Form {
    /// As a person writes it (real Cyrillic letters, `exd6 e.p.` with its space).
    pub display: String,
    /// As the reader sees it: [`crate::glyph::canonical_str`] of `display`.
    pub glyph: String,
    pub style: Style,
    pub mark: Mark,
    /// The check or mate mark written (`""`, `+`, `#`, `++`, `X`).
    pub check_mark: &'static str,
}

/// Every written form of legal move `m` in `pos` in notation `n`, the most typical
/// first, without two forms of the same glyph string. Annotation marks
/// ([`ANNOTATIONS`]) may follow any of them and are not listed.
pub fn forms(pos: &Chess, m: Move, n: Notation) -> Vec<Form> {
    let shape = MoveShape::new(pos, m);
    let check = Check::after(pos, m);
    let mut out: Vec<Form> = Vec::new();
    for body in bodies(&shape, n, Script::Display) {
        for &check_mark in check_marks(n, check) {
            let display = format!("{}{check_mark}", body.text);
            let glyph = crate::glyph::canonical_str(&display);
            if !out.iter().any(|f| f.glyph == glyph) {
                out.push(Form {
                    display,
                    glyph,
                    style: body.style,
                    mark: body.mark,
                    check_mark,
                });
            }
        }
    }
    out
}

/// Every written form of legal move `m` in `pos` in notation `n` as a glyph string
/// (see [`forms`]); the first is the most typical.
pub fn written_forms(pos: &Chess, m: &Move, n: Notation) -> Vec<String> {
    forms(pos, *m, n).into_iter().map(|f| f.glyph).collect()
}

/// The natural written form of legal move `m` in `pos` in notation `n`, with real
/// letters (`Кxd4+`, `0-0`, `e8Ф`, `S:f3`, `Dxd4`; English is SAN).
#[cfg(any(test, feature = "internals"))]
pub fn render(pos: &Chess, m: &Move, n: Notation) -> String {
    let shape = MoveShape::new(pos, *m);
    let body = bodies(&shape, n, Script::Display).swap_remove(0);
    let check = check_marks(n, Check::after(pos, *m))[0];
    // The typical body of an en-passant capture in Russian carries ` e.p.`: keep the
    // display compact for reports.
    let text = body.text.trim_end_matches(" e.p.");
    format!("{text}{check}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{Position, san::San};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap()
    }

    fn mv(p: &Chess, san: &str) -> Move {
        san.parse::<San>().unwrap().to_move(p).unwrap()
    }

    #[test]
    fn typical_forms_per_notation() {
        let start = Chess::default();
        let nf3 = mv(&start, "Nf3");
        let cases = [
            (Notation::En, "Nf3"),
            (Notation::Ru, "Кf3"),
            (Notation::Pl, "Sf3"),
            (Notation::De, "Sf3"),
        ];
        for (n, want) in cases {
            assert_eq!(render(&start, &nf3, n), want);
        }
    }

    #[test]
    fn knight_forms_include_long_and_over_disambiguated() {
        let start = Chess::default();
        let forms = written_forms(&start, &mv(&start, "Nf3"), Notation::Ru);
        for want in ["Kf3", "Kgf3", "K1f3", "Kg1f3", "Kg1-f3"] {
            assert!(
                forms.contains(&want.to_string()),
                "{want} missing from {forms:?}"
            );
        }
        assert_eq!(forms[0], "Kf3");
    }

    #[test]
    fn pawn_capture_forms() {
        let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        let forms = written_forms(&p, &mv(&p, "exd5"), Notation::Pl);
        assert_eq!(forms[0], "e:d5");
        for want in ["exd5", "ed5", "e4:d5", "e4xd5", "e4d5", "e4-d5"] {
            assert!(
                forms.contains(&want.to_string()),
                "{want} missing from {forms:?}"
            );
        }
    }

    #[test]
    fn terse_capture_forms_come_last() {
        let p = pos("rn1qkbnr/ppp1pppp/8/3p4/4P1b1/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 0 3");
        let forms = written_forms(&p, &mv(&p, "dxe4"), Notation::En);
        assert_eq!(forms[0], "dxe4");
        let short = forms.iter().position(|f| f == "de4").unwrap();
        for want in ["dxe", "de", "d:e", "PxP", "dxP", "PxPe4", "dxPe4"] {
            let at = forms.iter().position(|f| f == want);
            assert!(at.is_some_and(|k| k > short), "{want} in {forms:?}");
        }
        let forms = written_forms(&p, &mv(&p, "Bxf3"), Notation::En);
        for want in ["Bxf", "B:f", "BxN", "BxNf3"] {
            assert!(forms.contains(&want.to_string()), "{want} in {forms:?}");
        }
        assert!(!forms.contains(&"Bf".to_string()), "{forms:?}");
        // Other notations: files only, never the piece taken.
        let forms = written_forms(&p, &mv(&p, "Bxf3"), Notation::Ru);
        assert!(forms.contains(&"C:f".to_string()), "{forms:?}");
        assert!(
            !forms
                .iter()
                .any(|f| f.starts_with("Cx") && f.len() == 3 && f != "Cxf")
        );
        let forms = written_forms(&p, &mv(&p, "dxe4"), Notation::Pl);
        assert!(forms.contains(&"d:e".to_string()), "{forms:?}");
        assert!(!forms.iter().any(|f| f.contains('P')), "{forms:?}");
    }

    #[test]
    fn en_passant_and_promotion_and_mate() {
        let p = pos("rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
        let forms = written_forms(&p, &mv(&p, "exd6"), Notation::Ru);
        assert_eq!(forms[0], "exd6e.p.");
        assert!(forms.contains(&"ed6".to_string()));
        assert!(forms.contains(&"e5:d6ep".to_string()));

        let p = pos("8/4P3/8/8/8/8/k7/2K5 w - - 0 1");
        let q = mv(&p, "e8=Q");
        assert_eq!(render(&p, &q, Notation::Ru), "e8Ф");
        assert_eq!(render(&p, &q, Notation::En), "e8=Q");
        assert!(written_forms(&p, &q, Notation::Pl).contains(&"e7-e8H".to_string()));

        let p = pos("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
        let m = mv(&p, "Ra8#");
        let forms = written_forms(&p, &m, Notation::Pl);
        for want in ["Wa8#", "Wa8X", "Wa8+", "Wa8++", "Wa8", "Wa1-a8#"] {
            assert!(
                forms.contains(&want.to_string()),
                "{want} missing from {forms:?}"
            );
        }
    }

    #[test]
    fn shapes_in_bulk_match_one_by_one() {
        for fen in [
            "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1",
            "4k3/8/8/8/2N1N3/8/8/2N1NK2 w - - 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "7k/1Q1Q4/8/1Q6/8/8/8/4K3 w - - 0 1",
            "r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1",
            "r3k2r/8/8/8/3pP3/8/1p6/R3K2R b KQkq e3 0 1",
        ] {
            let p = pos(fen);
            let moves = p.legal_moves();
            let bulk = MoveShape::all(&p, &moves);
            for (k, (m, shape)) in moves.iter().zip(&bulk).enumerate() {
                assert_eq!(*shape, MoveShape::new(&p, *m), "{fen}: {m}");
                let shared = Shared::of(&moves);
                assert_eq!(
                    MoveShape::one(&p, &moves, &shared, k),
                    *shape,
                    "{fen}: {m} alone"
                );
            }
        }
    }

    #[test]
    fn castling_with_zeros_and_letters() {
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let m = mv(&p, "O-O-O");
        assert_eq!(written_forms(&p, &m, Notation::En), ["O-O-O", "0-0-0"]);
        assert_eq!(render(&p, &m, Notation::Ru), "0-0-0");
    }

    #[test]
    fn under_disambiguated_form_is_offered() {
        let p = pos("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
        let forms = written_forms(&p, &mv(&p, "Nbd2"), Notation::En);
        assert_eq!(forms[0], "Nbd2");
        assert!(forms.contains(&"Nd2".to_string()));
        assert!(forms.contains(&"Nb1d2".to_string()));
    }
}
