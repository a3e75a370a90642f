//! The printed-text reader's side of the header fields: where a form's fields are
//! (their printed labels and the boxes their values are written in, the printed
//! result options) and the text of a written line. The cell reader knows neither; a
//! model that has such a reader hands it out through
//! [`super::CellModel::header_reader`], and the pipeline reads each sheet's header
//! with it (`form::values`).

use image::GrayImage;

/// One field the form prints: which (`event`, `date`, `round`, `board`, `white`,
/// `black`, `result`), the label as read, and the box its value is written in.
#[derive(Clone, Debug, PartialEq)]
pub struct Spot {
    pub field: String,
    pub label: Option<String>,
    /// `[x, y, w, h]` on the straightened page.
    pub value_box: [u32; 4],
}

/// The move table found on a page, as the header's reader needs it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// `[x, y, w, h]`: the box round all its cells.
    pub bbox: [u32; 4],
    /// The lowest of its columns' tops and the highest of their bottoms. On a photographed
    /// sheet the table's sides slant, and its box takes in print beside the higher end of
    /// its foot (or the lower end of its top): the page is read from these rows.
    pub inner: [u32; 2],
    /// The median cell's height.
    pub row: u32,
    /// Its cells' ruled boxes (the move-number boxes among them): a line read with its
    /// centre inside one is the table's, no header.
    pub cells: Vec<[u32; 4]>,
}

/// What the form prints around the moves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Located {
    pub spots: Vec<Spot>,
    /// The printed result option marked (circled, ticked, crossed): its PGN result,
    /// how sure the reader is (0..1) and the option's box.
    pub marked: Option<(String, f32, [u32; 4])>,
    /// The printed result options' boxes (`1-0  ½-½  0-1`), marked or not.
    pub options: Vec<[u32; 4]>,
    /// Why no printed option was taken as marked, where options were found.
    pub options_note: Option<String>,
    /// Boxes of the form's own print (labels, captions): what a value box takes in
    /// of them is paper to its reading.
    pub print: Vec<[u32; 4]>,
}

/// A reader of printed and written text lines (labels, names, events).
pub trait HeaderReader {
    /// The form's fields on `page` (the straightened page); `table` is the move
    /// table, when found.
    fn locate(&mut self, page: &GrayImage, table: Option<&Table>) -> Located;

    /// The text of one line and its probability (0..1).
    fn read_line(&mut self, crop: &GrayImage) -> (String, f32);

    /// Log-likelihood (nats) that `crop` says `text`.
    fn score(&mut self, crop: &GrayImage, text: &str) -> f32;

    /// [`HeaderReader::score`] for each of `texts`; a reader that reads the crop once
    /// for all of them overrides it.
    fn score_all(&mut self, crop: &GrayImage, texts: &[&str]) -> Vec<f32> {
        texts.iter().map(|t| self.score(crop, t)).collect()
    }

    /// The crop's own reading ([`HeaderReader::read_line`]), that reading's score
    /// (minus infinity when it reads nothing) and the scores of `texts`
    /// ([`HeaderReader::score_all`]); a reader that reads the crop once for all of
    /// them overrides it.
    fn read_and_score(
        &mut self,
        crop: &GrayImage,
        texts: &[&str],
    ) -> ((String, f32), f32, Vec<f32>) {
        let line = self.read_line(crop);
        let own = if line.0.is_empty() {
            f32::NEG_INFINITY
        } else {
            self.score(crop, &line.0)
        };
        (line, own, self.score_all(crop, texts))
    }

    /// A line written in Russian: its reading ([`HeaderReader::read_line`]) and its
    /// reading as Cyrillic ([`super::cyrillic`]); `None` where the reader cannot read
    /// Cyrillic.
    fn read_cyrillic(
        &mut self,
        _crop: &GrayImage,
    ) -> Option<((String, f32), super::cyrillic::Reading)> {
        None
    }

    /// Log-likelihoods (nats) that `crop` says each Russian word of `words`, read
    /// through the letters' look-alikes; minus infinity each where the reader
    /// cannot read Cyrillic.
    fn score_russian(&mut self, _crop: &GrayImage, words: &[&str]) -> Vec<f32> {
        vec![f32::NEG_INFINITY; words.len()]
    }

    /// Whether the reader's dictionary spells every letter of `text`.
    fn spells(&self, text: &str) -> bool;
}
