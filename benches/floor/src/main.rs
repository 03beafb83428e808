//! Benchmark floor: the bare work an import cannot avoid, as pgn-reader's
//! `parallel_validate` example does it. One reader thread runs pgn-reader over
//! the input (plain or `.zst`) and collects each game's SAN moves and `FEN`
//! tag into batches of 512; rayon workers replay every SAN with shakmaty
//! (`to_move` + `play_unchecked`), compute the Zobrist hash of every position
//! (legal en-passant mode, incrementally), keep a repetition history, and
//! check checkmate, stalemate and insufficient material at the end.
//!
//! `cargo run --release --manifest-path benches/floor/Cargo.toml -- [--threads N] FILE...`
//! prints `games N illegal N checkmates N stalemates N insufficient N repeated N`;
//! `benches/throughput.sh` times it beside `pgnlake import`. A package of its
//! own, so that shakmaty is built as a bare user builds it (without the
//! `variant` feature pgnlake needs, which costs the standard path).

use std::fs::File;
use std::io::{self, Read};
use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use rayon::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

const BATCH: usize = 512;

struct Game {
    fen: Option<Vec<u8>>,
    sans: Vec<San>,
}

/// What the workers found, summed over games.
#[derive(Default, Clone, Copy)]
struct Tally {
    games: u64,
    illegal: u64,
    checkmates: u64,
    stalemates: u64,
    insufficient: u64,
    repeated: u64,
}

impl std::ops::Add for Tally {
    type Output = Tally;
    fn add(self, o: Tally) -> Tally {
        Tally {
            games: self.games + o.games,
            illegal: self.illegal + o.illegal,
            checkmates: self.checkmates + o.checkmates,
            stalemates: self.stalemates + o.stalemates,
            insufficient: self.insufficient + o.insufficient,
            repeated: self.repeated + o.repeated,
        }
    }
}

struct Collector;

impl Visitor for Collector {
    type Tags = Option<Vec<u8>>;
    type Movetext = Game;
    type Output = Game;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(None)
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        if name == b"FEN" {
            tags.replace(value.decode().into_owned());
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, fen: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(Game {
            fen,
            sans: Vec::with_capacity(96),
        })
    }

    fn san(&mut self, game: &mut Self::Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        game.sans.push(san_plus.san);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, game: Self::Movetext) -> Self::Output {
        game
    }
}

/// Replays one game; `None` when a move is illegal or the FEN unreadable.
fn replay(game: &Game) -> Option<Tally> {
    let mut pos: Chess = match &game.fen {
        Some(fen) => Fen::from_ascii(fen)
            .ok()?
            .into_position(CastlingMode::Chess960)
            .ok()?,
        None => Chess::default(),
    };
    let mut hash: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
    let mut history = Vec::with_capacity(game.sans.len() + 1);
    history.push(hash);
    let mut repeated = false;
    for san in &game.sans {
        let m = san.to_move(&pos).ok()?;
        let next = pos.update_zobrist_hash(hash, m, EnPassantMode::Legal);
        let zeroing = m.is_zeroing();
        pos.play_unchecked(m);
        hash = next.unwrap_or_else(|| pos.zobrist_hash(EnPassantMode::Legal));
        if zeroing {
            history.clear();
        }
        repeated |= history.iter().filter(|&&h| h == hash).count() >= 2;
        history.push(hash);
    }
    Some(Tally {
        games: 1,
        checkmates: u64::from(pos.is_checkmate()),
        stalemates: u64::from(pos.is_stalemate()),
        insufficient: u64::from(pos.is_insufficient_material()),
        repeated: u64::from(repeated),
        ..Tally::default()
    })
}

fn replay_batch(batch: Vec<Game>) -> Tally {
    batch
        .iter()
        .map(|game| {
            replay(game).unwrap_or(Tally {
                games: 1,
                illegal: 1,
                ..Tally::default()
            })
        })
        .fold(Tally::default(), |a, b| a + b)
}

fn open(path: &str) -> io::Result<Box<dyn Read + Send>> {
    let file = File::open(path)?;
    Ok(if path.ends_with(".zst") {
        Box::new(zstd::Decoder::new(file)?)
    } else {
        Box::new(file)
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = 0;
    if let Some(at) = args.iter().position(|a| a == "--threads") {
        threads = args.get(at + 1).ok_or("--threads N")?.parse()?;
        args.drain(at..at + 2);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let (send, recv) = crossbeam_channel::bounded::<Vec<Game>>(4 * pool.current_num_threads());
    let reader = std::thread::spawn(move || -> io::Result<()> {
        for path in &args {
            let mut reader = Reader::new(open(path)?);
            let mut batch = Vec::with_capacity(BATCH);
            while let Some(game) = reader.read_game(&mut Collector)? {
                batch.push(game);
                if batch.len() == BATCH && send.send(std::mem::take(&mut batch)).is_err() {
                    return Ok(());
                }
            }
            if !batch.is_empty() && send.send(batch).is_err() {
                return Ok(());
            }
        }
        Ok(())
    });
    let tally = pool.install(|| {
        recv.into_iter()
            .par_bridge()
            .map(replay_batch)
            .reduce(Tally::default, |a, b| a + b)
    });
    reader.join().map_err(|_| "reader thread panicked")??;
    println!(
        "games {} illegal {} checkmates {} stalemates {} insufficient {} repeated {}",
        tally.games,
        tally.illegal,
        tally.checkmates,
        tally.stalemates,
        tally.insufficient,
        tally.repeated
    );
    Ok(())
}
