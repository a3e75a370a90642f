//! Small sheets written by the fake writer -> decoded games: the sample game read
//! cleanly in its notation, blank cells ending the game (but not an empty row with moves
//! below it), a locked cell, two copies of one sheet, a cell that no legal move
//! explains (inside the game and after its last move), and a player's slip. Every decoded game must replay legally and survive a
//! PGN round trip.

use scoresheet::decode::simulate::{Mistakes, NoiseModel, Simulator, model_alphabet};
use scoresheet::decode::{
    DecodeParams, DecodedSheet, Decoder, EntryKind, EscapeParams, GameStatus, ReadingParams,
    ReviewParams,
};
use scoresheet::model::CellScores;
use scoresheet::notation::{Notation, Rng, read_pgn, replay_auto, split_game, write_pgn};
use shakmaty::{Chess, Position};

const SAMPLE: &str = "1.e4 e5 2. Кf3 Кf6 3. d4 exd4 4. e5 Кe4 5. Фxd4 d5 6. exd6 e.p. Кxd6 7. Сg5 Кc6 8. Фe3+ Сe7 9. Кbd2 0-0 10. 0-0-0 Лe8 11. Kрb1 (=)";

fn clean() -> Simulator {
    let noise = NoiseModel {
        confusion: 0.0,
        drop_mark: 0.0,
        ..NoiseModel::default()
    };
    Simulator::new(&model_alphabet(), noise, Mistakes::none())
}

/// Cells for written texts (sheet order), read by `sim`.
fn cells(sim: &Simulator, texts: &[&str], seed: u64) -> Vec<CellScores> {
    let mut rng = Rng::new(seed);
    texts.iter().map(|t| sim.cell(t, &mut rng)).collect()
}

fn sample_texts() -> Vec<String> {
    split_game(SAMPLE)
        .plies
        .into_iter()
        .map(|p| p.text)
        .collect()
}

/// The decoder with its default settings, English notation given.
fn english() -> Decoder {
    Decoder::new(
        &model_alphabet(),
        DecodeParams {
            reading: ReadingParams {
                notation: Some(Notation::En),
                ..Default::default()
            },
            ..Default::default()
        },
    )
}

/// The decoded game replays from the start and comes back from PGN unchanged.
fn assert_legal_and_pgn_round_trip(sheet: &DecodedSheet) {
    let mut pos = Chess::default();
    for m in &sheet.moves {
        assert!(pos.is_legal(*m), "illegal move {m} in decoded game");
        pos.play_unchecked(*m);
    }
    let pgn = write_pgn(&[], &sheet.moves, "*");
    let back = read_pgn(&pgn);
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].as_ref().expect("our PGN parses").moves, sheet.moves);
}

#[test]
fn sample_game_decodes_cleanly_and_detects_russian() {
    let texts = sample_texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).chain(["", ""]).collect();
    let sheet =
        Decoder::new(&model_alphabet(), DecodeParams::default()).decode(&cells(&clean(), &refs, 1));
    let (_, want) = replay_auto(&split_game(SAMPLE)).unwrap();
    assert_eq!(sheet.notation, Notation::Ru);
    assert_eq!(sheet.moves, want);
    assert_eq!(sheet.status, GameStatus::Complete);
    assert_eq!(sheet.cells_used, texts.len());
    assert!(
        sheet
            .entries
            .iter()
            .all(|e| e.kind == EntryKind::Read && !e.review),
        "{:#?}",
        sheet.entries
    );
    let castles = sheet.entry_for_cell(17).unwrap();
    assert_eq!(castles.san.as_deref(), Some("O-O"));
    assert_eq!(castles.written.as_deref(), Some("0-0"));
    assert_eq!(
        sheet.entry_for_cell(10).unwrap().written.as_deref(),
        Some("exd6 e.p.")
    );
    assert_eq!(sheet.entry_for_cell(2).unwrap().read, "Nf3");
    assert_legal_and_pgn_round_trip(&sheet);
}

#[test]
fn blank_cells_end_the_game_and_ink_after_them_is_partial() {
    let sim = clean();
    let decoder = english();
    let sheet = decoder.decode(&cells(&sim, &["e4", "e5", "Nf3", "", "", "", ""], 2));
    assert_eq!(sheet.cells_used, 3);
    assert_eq!(sheet.sans(), ["e4", "e5", "Nf3"]);
    assert_eq!(sheet.status, GameStatus::Complete);

    let sheet = decoder.decode(&cells(&sim, &["e4", "e5", "Nf3", "", "", "Nc6"], 3));
    assert_eq!(sheet.sans(), ["e4", "e5", "Nf3"]);
    assert_eq!(sheet.status, GameStatus::Partial);
}

#[test]
fn an_empty_row_with_moves_below_it_does_not_end_the_game() {
    let sim = clean();
    let decoder = english();
    // The player left row 3 empty and went on below it.
    let texts = [
        "e4", "e5", "Nf3", "Nc6", "", "", "Bb5", "a6", "Ba4", "Nf6", "", "",
    ];
    let sheet = decoder.decode(&cells(&sim, &texts, 5));
    assert_eq!(
        sheet.sans(),
        ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"]
    );
    assert_eq!(sheet.cells_used, 10);
    for cell in [4, 5] {
        let e = sheet.entry_for_cell(cell).unwrap();
        assert_eq!(
            (e.kind, e.review),
            (EntryKind::Skipped, true),
            "cell {cell}"
        );
    }
    assert_legal_and_pgn_round_trip(&sheet);
}

#[test]
fn a_single_blank_cell_is_a_shifted_row() {
    let sim = clean();
    let decoder = english();
    let sheet = decoder.decode(&cells(
        &sim,
        &["e4", "e5", "", "Nf3", "Nc6", "Bb5", "a6", "", ""],
        4,
    ));
    assert_eq!(sheet.sans(), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
    let blank = sheet.entry_for_cell(2).unwrap();
    assert_eq!((blank.kind, blank.review), (EntryKind::Skipped, true));
    assert_legal_and_pgn_round_trip(&sheet);
}

#[test]
fn a_locked_cell_is_played_and_the_rest_follows() {
    let sim = clean();
    // The player wrote `Nc3` but the game had `Nf3` (a human fixed cell 2).
    let texts = ["e4", "e5", "Nc3", "Nc6", "Bb5", "a6", "", ""];
    let mut params = DecodeParams {
        reading: ReadingParams {
            notation: Some(Notation::En),
            ..Default::default()
        },
        ..Default::default()
    };
    let decoder = Decoder::new(&model_alphabet(), params.clone());
    assert_eq!(
        decoder.decode(&cells(&sim, &texts, 5)).moves[2]
            .to()
            .to_string(),
        "c3"
    );
    params.locked.insert(2, "Nf3".to_string());
    let sheet = Decoder::new(&model_alphabet(), params).decode(&cells(&sim, &texts, 5));
    assert_eq!(sheet.sans(), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
    let locked = sheet.entry_for_cell(2).unwrap();
    assert_eq!(
        (locked.kind, locked.confidence, locked.review),
        (EntryKind::Locked, 1.0, false)
    );
    assert!(sheet.lock_conflicts.is_empty());
    assert_legal_and_pgn_round_trip(&sheet);
}

#[test]
fn a_locked_move_that_needs_a_replaced_move_holds() {
    // The sheet reads 1. e4 and 2. Nf3 clearly; the human says Black's 2nd move was
    // exd4, which needs d4: only lines that replaced a clear White move allow it, behind
    // the best (a locked cell tries every beam entry, however far behind).
    let sim = clean();
    let texts = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "", ""];
    let mut params = DecodeParams {
        reading: ReadingParams {
            notation: Some(Notation::En),
            ..Default::default()
        },
        ..Default::default()
    };
    let free = Decoder::new(&model_alphabet(), params.clone()).decode(&cells(&sim, &texts, 7));
    assert_eq!(free.sans(), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
    params.locked.insert(3, "exd4".to_string());
    let sheet = Decoder::new(&model_alphabet(), params).decode(&cells(&sim, &texts, 7));
    assert!(
        sheet.lock_conflicts.is_empty(),
        "{:?}",
        sheet.lock_conflicts
    );
    // Some line replaced a clear White move by d4 (which one is the decoder's choice).
    let sans = sheet.sans();
    assert_eq!(sans[3], "exd4", "{sans:?}");
    assert!(sans[..3].contains(&"d4".to_string()), "{sans:?}");
    assert_legal_and_pgn_round_trip(&sheet);
}

#[test]
fn an_unexplained_cell_is_flagged_not_forced() {
    let sim = clean();
    let texts = ["e4", "e5", "Nf3", "hhhh", "Bc4", "Nf6", "", ""];
    let decoder = english();
    let sheet = decoder.decode(&cells(&sim, &texts, 6));
    let bad = sheet.entry_for_cell(3).unwrap();
    assert!(bad.review, "{bad:?}");
    assert!(bad.confidence < 0.8, "{bad:?}");
    assert_eq!(sheet.entry_for_cell(4).unwrap().san.as_deref(), Some("Bc4"));
    assert_eq!(sheet.entry_for_cell(5).unwrap().san.as_deref(), Some("Nf6"));
    assert_legal_and_pgn_round_trip(&sheet);
}

#[test]
fn a_players_slip_keeps_its_reading_and_is_flagged() {
    // Black wrote `Nc3` for 2...Nc6 (no black knight reaches c3). One glyph read
    // otherwise costs the simulated reader's cells about 2.7 nats (the real reader's
    // 4-6, see `written_floor`): the floor is scaled to match.
    let sim = clean();
    let texts = ["e4", "e5", "Nf3", "Nc3", "Bb5", "a6", "Ba4", "Nf6", "", ""];
    let decoder = Decoder::new(
        &model_alphabet(),
        DecodeParams {
            reading: ReadingParams {
                notation: Some(Notation::En),
                ..Default::default()
            },
            review: ReviewParams {
                written_floor: 2.0,
                ..Default::default()
            },
            ..Default::default()
        },
    );
    let sheet = decoder.decode(&cells(&sim, &texts, 9));
    let slip = sheet.entry_for_cell(3).unwrap();
    assert_eq!(slip.san.as_deref(), Some("Nc6"), "{slip:?}");
    assert_eq!(slip.read, "Nc3", "{slip:?}");
    assert_eq!(slip.written, None, "the cell does not show Nc6: {slip:?}");
    assert!(slip.review, "{slip:?}");
    let next = sheet.entry_for_cell(4).unwrap();
    assert_eq!(next.san.as_deref(), Some("Bb5"));
    assert_eq!(next.written.as_deref(), Some("Bb5"));
    assert!(!next.review, "{next:?}");
    assert_legal_and_pgn_round_trip(&sheet);
}

#[test]
fn captures_written_by_the_piece_taken_are_read() {
    // Old English habits: `dxe` (files only), `BxN` (the piece taken), `PxP`.
    // 1. e4 d5 2. Nc3 dxe4 3. Nxe4 Bf5 4. Bd3 Bxe4 5. Bxe4 c6 6. d4 e5 7. dxe5
    let sim = clean();
    let texts = [
        "e4", "d5", "Nc3", "dxe", "NxP", "Bf5", "Bd3", "BxN", "BxB", "c6", "d4", "e5", "PxP", "",
        "",
    ];
    let decoder = english();
    let sheet = decoder.decode(&cells(&sim, &texts, 5));
    let want = [
        "e4", "d5", "Nc3", "dxe4", "Nxe4", "Bf5", "Bd3", "Bxe4", "Bxe4", "c6", "d4", "e5", "dxe5",
    ];
    let got: Vec<&str> = sheet
        .entries
        .iter()
        .filter_map(|e| e.san.as_deref())
        .collect();
    assert_eq!(got, want);
    for (cell, text) in texts.iter().enumerate().filter(|(_, t)| !t.is_empty()) {
        let e = sheet.entry_for_cell(cell).unwrap();
        assert_eq!(e.written.as_deref(), Some(*text), "{e:?}");
    }
    assert_legal_and_pgn_round_trip(&sheet);
}

#[test]
fn two_copies_are_read_together() {
    // White's copy is read badly, Black's cleanly: together they give (nearly) the
    // clean game: a copy that disagrees does not spoil the other one.
    let texts = sample_texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).chain(["", ""]).collect();
    let noisy = Simulator::new(
        &model_alphabet(),
        NoiseModel {
            confusion: 0.25,
            ..NoiseModel::default()
        },
        Mistakes::none(),
    );
    let (_, want) = replay_auto(&split_game(SAMPLE)).unwrap();
    let decoder = Decoder::new(
        &model_alphabet(),
        DecodeParams {
            reading: ReadingParams {
                notation: Some(Notation::Ru),
                ..Default::default()
            },
            ..Default::default()
        },
    );
    let right = |s: &DecodedSheet| s.moves.iter().zip(&want).filter(|(x, y)| x == y).count();
    for seed in 0..4 {
        let bad = cells(&noisy, &refs, 100 + seed);
        let good = cells(&clean(), &refs, 200 + seed);
        let both: Vec<Vec<CellScores>> = bad
            .iter()
            .zip(&good)
            .map(|(x, y)| vec![x.clone(), y.clone()])
            .collect();
        let sheet = decoder.decode_copies(&both);
        assert_legal_and_pgn_round_trip(&sheet);
        let alone = right(&decoder.decode(&bad));
        assert!(
            right(&sheet) >= alone.max(want.len() - 1),
            "seed {seed}: {} right, bad copy alone {alone}",
            right(&sheet)
        );
    }
}

/// Makes glyph `glyph` of a clean cell faint: the first frame that reads it keeps
/// probability `p` (the blank the rest), the other frames lose it to the blank.
fn fade(cell: &mut CellScores, glyph: char, p: f32) {
    let alphabet = model_alphabet();
    let (class, blank) = (alphabet.class_of(glyph).unwrap(), alphabet.blank());
    let frames: Vec<usize> = (0..cell.steps)
        .filter(|&t| {
            let row = &cell.logp[t * cell.classes..(t + 1) * cell.classes];
            let top = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            row[class] == top
        })
        .collect();
    assert!(!frames.is_empty(), "the clean cell shows its `{glyph}`");
    for (i, &t) in frames.iter().enumerate() {
        let row = &mut cell.logp[t * cell.classes..(t + 1) * cell.classes];
        let q: f32 = if i == 0 { p } else { 1e-4 };
        row[class] = q.ln();
        row[blank] = (1.0 - q).ln();
    }
}

#[test]
fn a_faint_needed_disambiguation_is_shown_as_written() {
    // 9. Кbd2 (both knights reach d2): the `b` is faint, so the cell reads `Кd2` by a
    // little. Players write the disambiguation SAN needs; the reader misses small
    // glyphs: the form shown is `Кbd2`, unless forms are chosen by score alone.
    let texts = sample_texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).chain(["", ""]).collect();
    let mut sheet_cells = cells(&clean(), &refs, 1);
    let alphabet = model_alphabet();
    // One frame keeps a weak `b` (0.4 against the blank's 0.6), the others lose it.
    fade(&mut sheet_cells[16], 'b', 0.4);
    let read = |form_penalty: f32| {
        let params = DecodeParams {
            reading: ReadingParams {
                notation: Some(Notation::Ru),
                ..Default::default()
            },
            review: ReviewParams {
                form_penalty,
                ..Default::default()
            },
            ..Default::default()
        };
        let sheet = Decoder::new(&alphabet, params).decode(&sheet_cells);
        let (_, want) = replay_auto(&split_game(SAMPLE)).unwrap();
        assert_eq!(sheet.moves, want);
        assert_legal_and_pgn_round_trip(&sheet);
        sheet.entry_for_cell(16).unwrap().written.clone()
    };
    assert_eq!(
        read(DecodeParams::default().review.form_penalty).as_deref(),
        Some("Кbd2")
    );
    assert_eq!(read(0.0).as_deref(), Some("Кd2"));
}

#[test]
fn a_long_form_writer_s_faint_origin_is_shown_in_long_form() {
    // A sheet written in long form all through; in 7. Сc1d2 the `1` is faint, so the
    // cell reads `Сcd2` by a few nats. The writer writes long forms: the form shown is
    // `Сc1d2`, unless the writer's style is left out of the choice.
    let texts = [
        "e2e4", "e7e5", "Кg1f3", "Кb8c6", "Сf1c4", "Сf8c5", "c2c3", "Кg8f6", "d2d4", "e5xd4",
        "c3xd4", "Сc5b4+", "Сc1d2", "Сb4xd2+", "Кb1xd2", "d7d5", "e4xd5", "Кf6xd5", "Фd1b3",
        "Кc6e7", "0-0", "0-0", "Лf1e1", "c7c6", "", "",
    ];
    let mut sheet_cells = cells(&clean(), &texts, 3);
    let alphabet = model_alphabet();
    fade(&mut sheet_cells[12], '1', 0.1);
    let read = |long_style: f32| {
        let params = DecodeParams {
            reading: ReadingParams {
                notation: Some(Notation::Ru),
                ..Default::default()
            },
            review: ReviewParams {
                long_style,
                ..Default::default()
            },
            ..Default::default()
        };
        let sheet = Decoder::new(&alphabet, params).decode(&sheet_cells);
        assert_legal_and_pgn_round_trip(&sheet);
        assert_eq!(sheet.moves.len(), 24);
        let e = sheet.entry_for_cell(12).unwrap();
        assert_eq!(e.san.as_deref(), Some("Bd2"));
        e.written.clone()
    };
    assert_eq!(
        read(DecodeParams::default().review.long_style).as_deref(),
        Some("Сc1d2")
    );
    assert_eq!(read(0.0).as_deref(), Some("Сcd2"));
}

/// Splits the first frame that reads `glyph` of a clean cell between it (`p`) and
/// `other` (`1 - p`); its other frames go to the blank. The cell then reads as written
/// with probability about `p`, with `other` in its place about `1 - p`.
fn blur_into(cell: &mut CellScores, glyph: char, other: char, p: f32) {
    let alphabet = model_alphabet();
    let (g, o) = (
        alphabet.class_of(glyph).unwrap(),
        alphabet.class_of(other).unwrap(),
    );
    fade(cell, glyph, p);
    let t = (0..cell.steps)
        .find(|&t| (cell.logp[t * cell.classes + g] - p.ln()).abs() < 1e-6)
        .expect("the faded frame");
    let row = &mut cell.logp[t * cell.classes..(t + 1) * cell.classes];
    row[o] = (1.0 - p).ln();
    row[alphabet.blank()] = -30.0;
}

#[test]
fn a_move_a_later_cell_rules_out_loses_its_mass_and_never_outranks_the_choice() {
    // 1. a4, written with an `a` that reads as `g` two times in three; 2. g4 later on
    // makes 1. g4 impossible (the pawn would stand on g4 already). A posterior that
    // looks one cell ahead gives 1. g4 most of the mass; the whole sheet gives it
    // little, and the chosen move is never below an alternative.
    let sim = clean();
    let texts = ["a4", "e5", "g4", "d5", "h3", "Nf6"];
    let mut c = cells(&sim, &texts, 7);
    blur_into(&mut c[0], 'a', 'g', 0.3);
    c.push(CellScores::blank(c[0].steps, &model_alphabet()));
    c.push(CellScores::blank(c[0].steps, &model_alphabet()));
    let sheet = english().decode(&c);
    assert_legal_and_pgn_round_trip(&sheet);
    assert_eq!(sheet.sans(), ["a4", "e5", "g4", "d5", "h3", "Nf6"]);
    let first = sheet.entry_for_cell(0).unwrap();
    eprintln!(
        "1. {:?} {} {:?}",
        first.san, first.confidence, first.alternatives
    );
    let g4 = first
        .alternatives
        .iter()
        .find(|a| a.san == "g4")
        .map_or(0.0, |a| a.confidence);
    assert!(
        g4 < 0.2 && first.confidence > 0.5,
        "1. a4 {} against 1. g4 {g4}",
        first.confidence
    );
    for e in &sheet.entries {
        let total: f32 = e.confidence + e.alternatives.iter().map(|a| a.confidence).sum::<f32>();
        assert!(total <= 1.0 + 1e-4, "{e:?}");
        assert!(
            e.alternatives.iter().all(|a| a.confidence <= e.confidence),
            "{e:?}"
        );
    }
}

#[test]
fn the_forms_language_decides_only_where_the_hand_does_not() {
    let sim = clean();
    let decode = |texts: &[&str], form: Option<Notation>| {
        let params = DecodeParams {
            reading: ReadingParams {
                form_notation: form,
                ..Default::default()
            },
            ..Default::default()
        };
        Decoder::new(&model_alphabet(), params).decode(&cells(&sim, texts, 5))
    };
    // Knights and pawns only: German and Polish both write `S` for the knight, so
    // the hand cannot tell them apart and the printed form does.
    let both = [
        "e4", "e5", "Sf3", "Sc6", "d4", "exd4", "Sxd4", "Sf6", "", "",
    ];
    for form in [Notation::De, Notation::Pl] {
        let sheet = decode(&both, Some(form));
        assert_eq!(sheet.notation, form);
        assert_eq!(
            sheet.sans(),
            ["e4", "e5", "Nf3", "Nc6", "d4", "exd4", "Nxd4", "Nf6"]
        );
    }
    // A Russian hand on a form printed in another language stays Russian.
    let texts = sample_texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).chain(["", ""]).collect();
    for form in [Notation::En, Notation::Pl, Notation::De] {
        assert_eq!(decode(&refs, Some(form)).notation, Notation::Ru);
    }
}

#[test]
fn writing_after_the_last_move_that_shows_no_move_ends_the_game() {
    // After 4.Bxc6 the cell reads `hxc6e` (a word such as `resigns` read in move
    // glyphs, or a scribble): two glyphs from `bxc6`/`dxc6`. No later cell would confirm
    // a move put there, so the game ends before it and the cell is left for a human.
    let sim = clean();
    let decode = |texts: &[&str], final_skip_penalty: f32| {
        let decoder = Decoder::new(
            &model_alphabet(),
            DecodeParams {
                reading: ReadingParams {
                    notation: Some(Notation::En),
                    ..Default::default()
                },
                escapes: EscapeParams {
                    final_skip_penalty,
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        decoder.decode(&cells(&sim, texts, 11))
    };
    let end = [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "hxc6e", "", "",
    ];
    let sheet = decode(&end, DecodeParams::default().escapes.final_skip_penalty);
    let word = sheet.entry_for_cell(7).unwrap();
    assert_eq!(word.kind, EntryKind::Skipped, "{word:?}");
    assert!(word.review, "{word:?}");
    assert_eq!(sheet.moves.len(), 7);
    assert_eq!(sheet.status, GameStatus::Partial);
    assert_legal_and_pgn_round_trip(&sheet);
    // Skipped at the full price of a cell inside the game, it would have been a move.
    let forced = decode(&end, DecodeParams::default().escapes.skip_penalty);
    assert_eq!(forced.entry_for_cell(7).unwrap().kind, EntryKind::Replaced);
    // Inside the game (moves follow) the same reading is still a replaced move ...
    let inside = [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "hxc6e", "d3", "Bd6", "", "",
    ];
    let sheet = decode(&inside, DecodeParams::default().escapes.final_skip_penalty);
    assert_eq!(sheet.entry_for_cell(7).unwrap().kind, EntryKind::Replaced);
    assert_eq!(sheet.moves.len(), 10);
    // ... and a last move the cell shows is read.
    let shown = [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6", "", "",
    ];
    let sheet = decode(&shown, DecodeParams::default().escapes.final_skip_penalty);
    assert_eq!(
        sheet.entry_for_cell(7).unwrap().san.as_deref(),
        Some("dxc6")
    );
    assert_eq!(sheet.status, GameStatus::Complete);
}
