//! (position, legal move, notation) -> written forms: every text a player may put on a
//! sheet for that move (short, over- and under-disambiguated, long, castling with
//! zeros or letters, promotions, `e.p.`, capture and check marks), and the natural
//! display form of the move ([`render`]).

use shakmaty::{CastlingSide, Chess, Color, Move, Position, Role, Square, san::San};

use super::Notation;
use super::letters::{Script, piece_letter};

/// Whether a move gives check or mate: decides which check marks may follow it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Check {
    None,
    Check,
    Mate,
}

impl Check {
    /// The check state after playing legal move `m` in `pos`.
    pub fn after(pos: &Chess, m: Move) -> Check {
        let mut next = pos.clone();
        next.play_unchecked(m);
        if !next.is_check() {
            Check::None
        } else if next.legal_moves().is_empty() {
            Check::Mate
        } else {
            Check::Check
        }
    }
}

/// Everything the written body of a move (its form without check marks) depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveShape {
    pub role: Role,
    pub from: Square,
    /// Destination; for castling the king's destination.
    pub to: Square,
    /// The kind of piece taken (a pawn for en passant), `None` for no capture.
    pub captured: Option<Role>,
    pub en_passant: bool,
    pub promotion: Option<Role>,
    pub castle: Option<CastlingSide>,
    /// SAN needs the origin file (`Nbd2`) ...
    pub need_file: bool,
    /// ... or the origin rank (`R1e2`) to name the move unambiguously.
    pub need_rank: bool,
}

impl MoveShape {
    /// The shape of legal move `m` in `pos`.
    pub fn new(pos: &Chess, m: Move) -> MoveShape {
        let (need_file, need_rank) = match (m.role(), San::from_move(pos, m)) {
            (Role::Pawn, _) => (false, false),
            (_, San::Normal { file, rank, .. }) => (file.is_some(), rank.is_some()),
            _ => (false, false),
        };
        let castle = m.castling_side();
        let from = m.from().expect("chess moves have an origin");
        let to = match castle {
            Some(side) => side.king_to(pos.turn()),
            None => m.to(),
        };
        MoveShape {
            role: m.role(),
            from,
            to,
            captured: m.capture(),
            en_passant: m.is_en_passant(),
            promotion: m.promotion(),
            castle,
            need_file,
            need_rank,
        }
    }
}

/// Per role, the squares two or more moves of a list take a piece of that role to:
/// only moves there may need disambiguation.
pub struct Shared {
    twice: [u64; 7],
}

impl Shared {
    pub fn of(moves: &[Move]) -> Shared {
        let mut once = [0u64; 7];
        let mut twice = [0u64; 7];
        for m in moves {
            if let Move::Normal { role, to, .. } = *m
                && role != Role::Pawn
            {
                let bit = 1u64 << u32::from(to);
                twice[role as usize] |= once[role as usize] & bit;
                once[role as usize] |= bit;
            }
        }
        Shared { twice }
    }

    /// Whether another move of the list may take the same kind of piece where `m` goes.
    fn may(&self, m: Move) -> bool {
        match m {
            Move::Normal { role, to, .. } => {
                role != Role::Pawn && self.twice[role as usize] & (1u64 << u32::from(to)) != 0
            }
            _ => false,
        }
    }
}

impl MoveShape {
    /// The shapes of all `moves` (the legal moves of `pos`, as returned by
    /// `pos.legal_moves()`), in order: the same as [`MoveShape::new`] for each, with
    /// the disambiguation worked out once for the whole list.
    pub fn all(pos: &Chess, moves: &[Move]) -> Vec<MoveShape> {
        let shared = Shared::of(moves);
        let turn = pos.turn();
        moves
            .iter()
            .map(|&m| MoveShape::among(m, moves, turn, shared.may(m)))
            .collect()
    }

    /// The shape of `moves[k]` alone (`moves` the legal moves of `pos`, `shared` their
    /// [`Shared`]): cheaper than [`MoveShape::all`] when few of a list's shapes are
    /// wanted.
    pub fn one(pos: &Chess, moves: &[Move], shared: &Shared, k: usize) -> MoveShape {
        let m = moves[k];
        MoveShape::among(m, moves, pos.turn(), shared.may(m))
    }

    /// The shape of legal move `m` among the legal `moves` of its position; `shared`:
    /// another move of the list may take the same kind of piece to the same square
    /// (never for pawns, see [`Shared`]).
    #[inline(always)]
    fn among(m: Move, moves: &[Move], turn: Color, shared: bool) -> MoveShape {
        let plain = |role, from, to, captured: Option<Role>, promotion| MoveShape {
            role,
            from,
            to,
            captured,
            en_passant: false,
            promotion,
            castle: None,
            need_file: false,
            need_rank: false,
        };
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                let mut shape = plain(role, from, to, capture, promotion);
                if shared {
                    let (mut ambiguous, mut same_file, mut same_rank) = (false, false, false);
                    for other in moves {
                        if let Move::Normal {
                            role: r,
                            from: f,
                            to: t,
                            promotion: p,
                            ..
                        } = *other
                            && r == role
                            && t == to
                            && p == promotion
                            && f != from
                        {
                            ambiguous = true;
                            same_rank |= f.rank() == from.rank();
                            same_file |= f.file() == from.file();
                        }
                    }
                    shape.need_file = ambiguous && (!same_file || same_rank);
                    shape.need_rank = same_file;
                }
                shape
            }
            Move::EnPassant { from, to } => MoveShape {
                en_passant: true,
                ..plain(Role::Pawn, from, to, Some(Role::Pawn), None)
            },
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_queen_side(rook < king);
                MoveShape {
                    castle: Some(side),
                    ..plain(Role::King, king, side.king_to(turn), None, None)
                }
            }
            Move::Put { .. } => unreachable!("chess moves have an origin"),
        }
    }
}

impl MoveShape {
    /// Whether the move takes a piece.
    pub fn is_capture(&self) -> bool {
        self.captured.is_some()
    }

    /// The shape packed into the low 27 bits (equal shapes, equal keys), for fast maps.
    pub fn key(&self) -> u32 {
        let castle = match self.castle {
            None => 0,
            Some(CastlingSide::KingSide) => 1,
            Some(CastlingSide::QueenSide) => 2,
        };
        (self.role as u32)
            | (u32::from(self.from) << 3)
            | (u32::from(self.to) << 9)
            | (u32::from(self.en_passant) << 16)
            | (self.promotion.map_or(0, |r| r as u32) << 17)
            | (castle << 20)
            | (u32::from(self.need_file) << 22)
            | (u32::from(self.need_rank) << 23)
            | (self.captured.map_or(0, |r| r as u32) << 24)
    }
}

/// How a body is written: used to order forms and to sample realistic ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    /// Short algebraic with the disambiguation SAN needs (`Nf3`, `exd5`, `Nbd2`).
    Short,
    /// More disambiguation than needed, short of the full origin (`Ngf3`, `N1f3`).
    Over,
    /// The full origin square (`Ng1f3`, `e2-e4`, `e5xd4`).
    Long,
    /// A needed disambiguation left out (`Nd2` for `Nbd2`): ambiguous, yet common.
    Under,
    /// `O-O`, `0-0-0`, ...
    Castle,
    /// A capture named by less than its destination square (`ed`, `dxe`, `Bxe`), or
    /// in English by the piece taken (`BxN`, `PxP`, `QxNd5`): an old habit, ambiguous
    /// more often than not.
    Terse,
}

/// The separator written between origin and destination (or before the destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mark {
    /// No mark (`Nf3`, `ed5`, `e2e4`).
    Plain,
    /// `x`
    Cross,
    /// `:` (Polish, old Russian and German habit)
    Colon,
    /// `-` (long form)
    Dash,
}

impl Mark {
    fn text(self) -> &'static str {
        match self {
            Mark::Plain => "",
            Mark::Cross => "x",
            Mark::Colon => ":",
            Mark::Dash => "-",
        }
    }
}

/// One written body of a move: the text without check or annotation marks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body {
    pub text: String,
    pub style: Style,
    pub mark: Mark,
    /// Carries an `e.p.` / `ep` suffix.
    pub ep_suffix: bool,
    /// Promotion written with `=` (`e8=Q`).
    pub promo_eq: bool,
}

/// Capture marks in order of how typical they are in each notation (captures may
/// drop the mark altogether).
fn capture_marks(n: Notation) -> [Mark; 3] {
    match n {
        Notation::Pl => [Mark::Colon, Mark::Cross, Mark::Plain],
        Notation::En => [Mark::Cross, Mark::Plain, Mark::Colon],
        Notation::Ru | Notation::De => [Mark::Cross, Mark::Colon, Mark::Plain],
    }
}

/// `e.p.` suffixes (display spelling; glyph forms drop the space), most typical first.
fn ep_suffixes(n: Notation) -> &'static [&'static str] {
    match n {
        Notation::En => &["", " e.p.", "e.p.", " ep", "ep"],
        _ => &[" e.p.", "", "e.p.", " ep", "ep"],
    }
}

/// Check and mate marks that may follow a move in each check state, most typical first.
pub fn check_marks(n: Notation, check: Check) -> &'static [&'static str] {
    match (check, n) {
        (Check::None, _) => &[""],
        (Check::Check, _) => &["+", ""],
        (Check::Mate, Notation::Ru) => &["#", "++", "+", ""],
        (Check::Mate, Notation::Pl) => &["#", "X", "+", "++", ""],
        (Check::Mate, _) => &["#", "+", "++", ""],
    }
}

/// Annotation marks that may follow any move (after its check mark): move
/// evaluations and the draw-offer mark `(=)`. `""` first.
pub const ANNOTATIONS: [&str; 8] = ["", "!", "?", "!!", "??", "!?", "?!", "(=)"];

fn push_square(s: &mut String, sq: Square) {
    s.push(sq.file().char());
    s.push(sq.rank().char());
}

/// All written bodies of a move with this shape, the most typical first, without
/// duplicates (in the given script).
pub fn bodies(shape: &MoveShape, n: Notation, script: Script) -> Vec<Body> {
    let mut out: Vec<Body> = Vec::with_capacity(16);
    for_each_body(
        shape,
        n,
        script,
        &mut |text, style, mark, ep_suffix, promo_eq| {
            if !out.iter().any(|b| b.text == text) {
                out.push(Body {
                    text: text.to_string(),
                    style,
                    mark,
                    ep_suffix,
                    promo_eq,
                });
            }
        },
    );
    out
}

/// Calls `f(text, style, mark, ep_suffix, promo_eq)` for every written body of a move
/// with this shape, the most typical first; the same text may come more than once.
/// (The allocation-free core of [`bodies`].)
pub fn for_each_body(
    shape: &MoveShape,
    n: Notation,
    script: Script,
    f: &mut dyn FnMut(&str, Style, Mark, bool, bool),
) {
    if let Some(side) = shape.castle {
        let (letters, zeros) = match side {
            CastlingSide::KingSide => ("O-O", "0-0"),
            CastlingSide::QueenSide => ("O-O-O", "0-0-0"),
        };
        let order = if n == Notation::En {
            [letters, zeros]
        } else {
            [zeros, letters]
        };
        for text in order {
            f(text, Style::Castle, Mark::Dash, false, false);
        }
        return;
    }

    let letter = piece_letter(n, shape.role, script);
    let marks: &[Mark] = if shape.is_capture() {
        &capture_marks(n)
    } else {
        &[Mark::Plain]
    };
    // (origin file, origin rank, style), typical first.
    let minimal = (shape.need_file, shape.need_rank);
    let mut origins: [(bool, bool, Style); 5] = [(false, false, Style::Short); 5];
    let mut count = 0;
    let mut push = |o: (bool, bool, Style)| {
        origins[count] = o;
        count += 1;
    };
    if shape.role == Role::Pawn {
        push((shape.is_capture(), false, Style::Short));
        push((true, true, Style::Long));
    } else {
        push((minimal.0, minimal.1, Style::Short));
        for o in [(true, false), (false, true)] {
            if o != minimal && (o.0 || !minimal.0) && (o.1 || !minimal.1) {
                push((o.0, o.1, Style::Over));
            }
        }
        if minimal != (true, true) {
            push((true, true, Style::Long));
        }
        if minimal != (false, false) {
            push((false, false, Style::Under));
        }
    }
    let promos: &[bool] = match (shape.promotion, n) {
        (None, _) => &[false],
        (Some(_), Notation::En) => &[true, false],
        (Some(_), _) => &[false, true],
    };
    let eps: &[&str] = if shape.en_passant {
        ep_suffixes(n)
    } else {
        &[""]
    };

    let mut s = String::with_capacity(16);
    for &(file, rank, style) in &origins[..count] {
        let dash: &[Mark] = if style == Style::Long {
            &[Mark::Dash]
        } else {
            &[]
        };
        for &mark in marks.iter().chain(dash) {
            for &promo_eq in promos {
                for &ep in eps {
                    s.clear();
                    s.push_str(letter);
                    if file {
                        s.push(shape.from.file().char());
                    }
                    if rank {
                        s.push(shape.from.rank().char());
                    }
                    s.push_str(mark.text());
                    push_square(&mut s, shape.to);
                    if let Some(p) = shape.promotion {
                        if promo_eq {
                            s.push('=');
                        }
                        s.push_str(piece_letter(n, p, script));
                    }
                    match script {
                        Script::Display => s.push_str(ep),
                        Script::Glyph => s.extend(ep.chars().filter(|c| !c.is_whitespace())),
                    }
                    f(&s, style, mark, !ep.is_empty(), promo_eq);
                }
            }
        }
    }
    if shape.is_capture() && shape.promotion.is_none() {
        for_each_terse_body(shape, n, letter, marks, &mut s, f);
    }
}

/// The [`Style::Terse`] bodies of a capture (no promotion), after all the others.
fn for_each_terse_body(
    shape: &MoveShape,
    n: Notation,
    letter: &str,
    marks: &[Mark],
    s: &mut String,
    f: &mut dyn FnMut(&str, Style, Mark, bool, bool),
) {
    let (from_file, to_file) = (shape.from.file().char(), shape.to.file().char());
    for &mark in marks {
        s.clear();
        if shape.role == Role::Pawn {
            s.push(from_file);
        } else if mark == Mark::Plain {
            // (`Be` for `Bxe4` is no habit.)
            continue;
        } else {
            s.push_str(letter);
        }
        s.push_str(mark.text());
        s.push(to_file);
        f(s, Style::Terse, mark, false, false);
    }
    // The piece taken, named by its English letter (`P` for a pawn), as in the
    // descriptive notation English players grew up with.
    let (Notation::En, Some(taken)) = (n, shape.captured) else {
        return;
    };
    let taken = match taken {
        Role::Pawn => "P",
        r => piece_letter(n, r, Script::Glyph),
    };
    // The mover: its letter; a pawn's `P` or its file.
    let movers = if shape.role == Role::Pawn { 2 } else { 1 };
    for mover in 0..movers {
        for square in [false, true] {
            s.clear();
            match (shape.role, mover) {
                (Role::Pawn, 0) => s.push('P'),
                (Role::Pawn, _) => s.push(from_file),
                _ => s.push_str(letter),
            }
            s.push('x');
            s.push_str(taken);
            if square {
                push_square(s, shape.to);
            }
            f(s, Style::Terse, Mark::Cross, false, false);
        }
    }
}

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
