//! Page + grid -> RGB picture of the page with the cells drawn on it, for a human to
//! check at a glance: White cells green, Black cells blue, margins grey, move
//! numbers in red and a red path through the cells in move order.

use image::{GrayImage, Rgb, RgbImage};
use imageproc::drawing::{draw_hollow_rect_mut, draw_line_segment_mut};
use imageproc::rect::Rect;
use shakmaty::Color;

use super::{CellBox, Grid};
use crate::page::Page;

const RED: Rgb<u8> = Rgb([220, 20, 20]);
const GREEN: Rgb<u8> = Rgb([0, 160, 0]);
const BLUE: Rgb<u8> = Rgb([20, 60, 230]);
const GREY: Rgb<u8> = Rgb([170, 170, 170]);

/// Draws `grid` over a faded copy of the page.
pub fn overlay(page: &Page, grid: &Grid) -> RgbImage {
    let mut img = faded(&page.image);
    let thick = (grid.row_pitch / 30.0).round().clamp(1.0, 4.0) as i32;
    for cell in &grid.cells {
        rect(&mut img, cell.bbox, GREY, 1);
        let colour = if cell.side == Color::White {
            GREEN
        } else {
            BLUE
        };
        rect(&mut img, cell.ruled, colour, thick);
        if cell.side == Color::White {
            let scale = ((cell.ruled.h as f32 * 0.35) / 5.0).max(1.0) as u32;
            let (x, y) = (
                cell.ruled.x + 3 * thick as u32,
                cell.ruled.y + 3 * thick as u32,
            );
            draw_number(&mut img, cell.move_number, x, y, scale, RED);
        }
    }
    let centres: Vec<(f32, f32)> = grid
        .cells
        .iter()
        .map(|c| {
            (
                (c.ruled.x + c.ruled.w / 2) as f32,
                (c.ruled.y + c.ruled.h / 2) as f32,
            )
        })
        .collect();
    for pair in centres.windows(2) {
        for d in 0..thick {
            let o = d as f32;
            draw_line_segment_mut(
                &mut img,
                (pair[0].0, pair[0].1 + o),
                (pair[1].0, pair[1].1 + o),
                RED,
            );
        }
    }
    img
}

fn faded(gray: &GrayImage) -> RgbImage {
    RgbImage::from_fn(gray.width(), gray.height(), |x, y| {
        let v = 90 + gray.get_pixel(x, y)[0] as u32 * 165 / 255;
        Rgb([v as u8; 3])
    })
}

fn rect(img: &mut RgbImage, b: CellBox, colour: Rgb<u8>, thick: i32) {
    for d in 0..thick {
        let (w, h) = (b.w as i32 - 2 * d, b.h as i32 - 2 * d);
        if w > 0 && h > 0 {
            let r = Rect::at(b.x as i32 + d, b.y as i32 + d).of_size(w as u32, h as u32);
            draw_hollow_rect_mut(img, r, colour);
        }
    }
}

/// 3 x 5 bitmaps of the digits 0-9, one row per byte, bit 2 = left column.
pub(crate) const DIGITS: [[u8; 5]; 10] = [
    [7, 5, 5, 5, 7],
    [2, 6, 2, 2, 7],
    [7, 1, 7, 4, 7],
    [7, 1, 7, 1, 7],
    [5, 5, 7, 1, 1],
    [7, 4, 7, 1, 7],
    [7, 4, 7, 5, 7],
    [7, 1, 1, 2, 2],
    [7, 5, 7, 5, 7],
    [7, 5, 7, 1, 7],
];

/// Draws `n` in the 3 x 5 digit font, each font pixel `scale` pixels wide.
pub(crate) fn draw_number(img: &mut RgbImage, n: u32, x: u32, y: u32, scale: u32, colour: Rgb<u8>) {
    for (i, ch) in n.to_string().bytes().enumerate() {
        let glyph = DIGITS[(ch - b'0') as usize];
        let gx = x + i as u32 * 4 * scale;
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..3 {
                if bits >> (2 - col) & 1 == 1 {
                    for dy in 0..scale {
                        for dx in 0..scale {
                            let (px, py) = (gx + col * scale + dx, y + row as u32 * scale + dy);
                            if px < img.width() && py < img.height() {
                                img.put_pixel(px, py, colour);
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_a_number_in_the_digit_font() {
        let mut img = RgbImage::new(8, 5);
        draw_number(&mut img, 17, 0, 0, 1, RED);
        // "1": 0 1 0 / 1 1 0 / ...; "7" starts at x = 4 with a full top row.
        assert_eq!(img.get_pixel(1, 0), &RED);
        assert_eq!(img.get_pixel(0, 0), &Rgb([0, 0, 0]));
        assert!((4..7).all(|x| img.get_pixel(x, 0) == &RED));
    }
}
