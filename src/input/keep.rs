//! Input stage, a shard's part of one input: which games of it a run keeps,
//! by the uncompressed offset of their first byte ([`Cut`], planned by
//! `shard`), and the bounds a run reads them by ([`Keep`], fixed, or found
//! by the zstd frame reader as it reaches the frames they are tied to).
//! Apart from both, so that the planner and the frame reader each depend
//! on it and not on each other.

use std::sync::atomic::{AtomicU64, Ordering};

/// Which games of an input a shard keeps, by the uncompressed offset of
/// their first byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cut {
    /// The games that start in this range of the text.
    Text(std::ops::Range<u64>),
    /// The games that start in the text of the frames that start in this
    /// range of the compressed file (0: from the start; `u64::MAX`: to the
    /// end): the text offsets are known once the frames are reached.
    Frames(std::ops::Range<u64>),
}

impl Cut {
    /// Every game.
    pub(crate) const WHOLE: Cut = Cut::Text(0..u64::MAX);

    /// The bounds for one run over the input.
    pub(crate) fn keep(&self) -> Keep {
        match self {
            Cut::Text(range) => Keep {
                start: Bound::at(range.start),
                end: Bound::at(range.end),
            },
            Cut::Frames(range) => Keep {
                start: Bound::frame(range.start),
                end: Bound::frame(range.end),
            },
        }
    }
}

/// The bounds of a shard's part of an input during a run: text offsets,
/// fixed or found as the frames they are tied to are reached.
#[derive(Debug)]
pub struct Keep {
    start: Bound,
    end: Bound,
}

#[derive(Debug)]
struct Bound {
    /// The first frame starting at or after this compressed offset gives
    /// the text offset; none for a fixed bound.
    frame_from: Option<u64>,
    /// The text offset; `u64::MAX` while not reached (or at the end).
    text: AtomicU64,
}

impl Bound {
    fn at(text: u64) -> Bound {
        Bound {
            frame_from: None,
            text: AtomicU64::new(text),
        }
    }

    /// A frame bound: 0 and `u64::MAX` are the ends of the text.
    fn frame(compressed: u64) -> Bound {
        match compressed {
            0 | u64::MAX => Bound::at(compressed),
            _ => Bound {
                frame_from: Some(compressed),
                text: AtomicU64::new(u64::MAX),
            },
        }
    }

    fn reached(&self, frame_start: u64, text_at: u64) {
        if self.frame_from.is_some_and(|from| frame_start >= from) {
            // The first such frame has the least text offset.
            self.text.fetch_min(text_at, Ordering::Relaxed);
        }
    }
}

impl Keep {
    /// Every game (no shard).
    pub(crate) fn whole() -> Keep {
        Cut::WHOLE.keep()
    }

    /// Games that start before this text offset are not kept (`u64::MAX`:
    /// none is, as far as the input has been read).
    pub(crate) fn start(&self) -> u64 {
        self.start.text.load(Ordering::Relaxed)
    }

    /// Games from this text offset on are not kept.
    pub(crate) fn end(&self) -> u64 {
        self.end.text.load(Ordering::Relaxed)
    }

    /// A zstd frame that starts at compressed offset `frame_start` begins at
    /// text offset `text_at`: called by the reader before it hands out the
    /// frame's text, so a bound is known before any game past it is framed.
    pub(crate) fn frame_reached(&self, frame_start: u64, text_at: u64) {
        self.start.reached(frame_start, text_at);
        self.end.reached(frame_start, text_at);
    }

    /// Whether frames can move the bounds (the reader then reports them).
    pub(crate) fn follows_frames(&self) -> bool {
        self.start.frame_from.is_some() || self.end.frame_from.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_bounds_are_known_once_their_frame_is_reached() {
        let keep = Cut::Frames(100..500).keep();
        assert!(keep.follows_frames());
        assert_eq!((keep.start(), keep.end()), (u64::MAX, u64::MAX));
        keep.frame_reached(0, 0);
        keep.frame_reached(60, 4000);
        assert_eq!(keep.start(), u64::MAX);
        // The first frame at or after compressed byte 100 starts the part.
        keep.frame_reached(120, 8000);
        keep.frame_reached(300, 20000);
        assert_eq!((keep.start(), keep.end()), (8000, u64::MAX));
        keep.frame_reached(510, 33000);
        keep.frame_reached(900, 50000);
        assert_eq!((keep.start(), keep.end()), (8000, 33000));
        // From the start and to the end are fixed.
        let whole = Cut::Frames(0..u64::MAX).keep();
        assert!(!whole.follows_frames());
        assert_eq!((whole.start(), whole.end()), (0, u64::MAX));
    }
}
