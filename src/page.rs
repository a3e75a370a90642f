//! Image file -> page: decode (with size limits), orientation, deskew, normalised
//! grayscale.
