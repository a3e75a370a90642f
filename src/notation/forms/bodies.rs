//! Move shape + notation -> the bodies a player may write (short, over- and
//! under-disambiguated, long, castling with zeros or letters, promotions, `e.p.`) with
//! their capture marks, and the check marks that may follow.

use shakmaty::{CastlingSide, Role, Square};

use super::shape::{Check, MoveShape};
use crate::notation::Notation;
use crate::notation::letters::{Script, piece_letter};

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
