//! (position, legal move) -> what any written form of the move is built from: piece,
//! squares, capture, castling, promotion, en passant, check, and what other legal moves
//! share with it (for disambiguation).

use shakmaty::{CastlingSide, Chess, Color, Move, Position, Role, Square, san::San};

/// Whether a move gives check or mate: decides which check marks may follow it.
// `Check::Check`: the three states read as players say them (none, check, mate).
#[allow(clippy::enum_variant_names)]
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
