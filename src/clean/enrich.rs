//! Archivist mode, what `clean` adds to and takes from the games it writes:
//! tags of what pgnlake knows of a game (`--add-tags`: the opening named by
//! position, the ply count, the final position, the result the rules
//! prove, the speed, the lichess id), an existing tag that disagrees kept
//! and reported unless `--overwrite-tags`; and parts left out (`--strip`:
//! comments, variations, NAGs, or only the clock and eval commands).

use std::cell::OnceCell;

use crate::clean::action::{Action, ActionKind};
use crate::model::TimeClass;
use crate::pgn::tags::lichess_id;
use crate::replay::Replayed;
use crate::replay::openings;
use crate::sink::pgn::{ExportGame, ExportLine, ExportMove};

/// A tag `--add-tags` can add.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TagToAdd {
    /// `ECO`: the opening's code, by position (lichess's table).
    Eco,
    /// `Opening`: the opening's name before its `:` (as pgn-extract).
    Opening,
    /// `Variation`: the name after the `:`, when there is one.
    Variation,
    /// `PlyCount`: the mainline's plies.
    Plycount,
    /// `FinalFEN`: the position after the last move.
    FinalFen,
    /// `ResultByRule`: the result the board proves (absent when none).
    ResultByRule,
    /// `TimeClass`: ultrabullet … correspondence, from `TimeControl`.
    TimeClass,
    /// `LichessId`: the game's id in a lichess `Site` URL.
    LichessId,
}

impl TagToAdd {
    /// The tag's name in the PGN.
    pub fn tag_name(self) -> &'static str {
        match self {
            TagToAdd::Eco => "ECO",
            TagToAdd::Opening => "Opening",
            TagToAdd::Variation => "Variation",
            TagToAdd::Plycount => "PlyCount",
            TagToAdd::FinalFen => "FinalFEN",
            TagToAdd::ResultByRule => "ResultByRule",
            TagToAdd::TimeClass => "TimeClass",
            TagToAdd::LichessId => "LichessId",
        }
    }
}

/// A part of the games `--strip` leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StripPart {
    /// Every comment.
    Comments,
    /// Every variation.
    Variations,
    /// Every NAG (`$1`, `!`, …).
    Nags,
    /// `[%clk]`, `[%emt]` and `[%eval]` in comments (the rest kept; a
    /// comment left empty goes).
    Clocks,
}

/// How `--split-by` divides the clean output into files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitBy {
    /// `OUT-B90.pgn`: by the opening's ECO (by position, else the tag).
    Eco,
    /// `OUT-2024.pgn`: by the `Date` tag's year.
    Year,
    /// `OUT-<Event>.pgn`: by the `Event` tag.
    Event,
    /// `OUT-1.pgn`, `OUT-2.pgn`, …: N games each.
    Games(u64),
}

impl SplitBy {
    /// `eco`, `year`, `event` or a number of games.
    pub fn parse(text: &str) -> Result<SplitBy, String> {
        match text {
            "eco" => Ok(SplitBy::Eco),
            "year" => Ok(SplitBy::Year),
            "event" => Ok(SplitBy::Event),
            n => match n.parse::<u64>() {
                Ok(n) if n > 0 => Ok(SplitBy::Games(n)),
                _ => Err(format!(
                    "{text:?}: give eco, year, event or a number of games"
                )),
            },
        }
    }

    /// The file key of a game (eco, year or event; none for chunks).
    pub(super) fn key_of(self, tags: &[(String, String)], facts: &Facts<'_>) -> Option<String> {
        let tag = |name: &str| {
            tags.iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.trim())
                .filter(|v| !v.is_empty() && !v.starts_with('?'))
        };
        let key = match self {
            SplitBy::Eco => facts
                .opening()
                .map(|o| o.eco.to_owned())
                .or_else(|| tag("ECO").map(str::to_owned)),
            SplitBy::Year => tag("Date")
                .and_then(|d| d.get(..4))
                .filter(|y| y.bytes().all(|b| b.is_ascii_digit()))
                .map(str::to_owned),
            SplitBy::Event => tag("Event").map(str::to_owned),
            SplitBy::Games(_) => return None,
        };
        Some(file_key(key.as_deref().unwrap_or("unknown")))
    }
}

/// A key as a file name part: letters, digits, `.`, `-` and `_` kept,
/// anything else `_`, at most 100 characters.
fn file_key(key: &str) -> String {
    let keep = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_');
    let text: String = key
        .chars()
        .map(|c| if keep(c) { c } else { '_' })
        .take(100)
        .collect();
    match text.trim_start_matches('.') {
        "" => "unknown".to_owned(),
        kept => kept.to_owned(),
    }
}

/// What `clean` adds and strips (all off by default).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Enrich {
    add: [bool; 8],
    pub overwrite_tags: bool,
    strip: [bool; 4],
}

impl Enrich {
    pub fn new(add: &[TagToAdd], overwrite_tags: bool, strip: &[StripPart]) -> Enrich {
        let mut enrich = Enrich {
            overwrite_tags,
            ..Enrich::default()
        };
        for tag in add {
            if let Some(on) = enrich.add.get_mut(*tag as usize) {
                *on = true;
            }
        }
        for part in strip {
            if let Some(on) = enrich.strip.get_mut(*part as usize) {
                *on = true;
            }
        }
        enrich
    }

    fn adds(&self, tag: TagToAdd) -> bool {
        self.add.get(tag as usize).copied().unwrap_or(false)
    }

    fn strips(&self, part: StripPart) -> bool {
        self.strip.get(part as usize).copied().unwrap_or(false)
    }

    pub(super) fn adds_any(&self) -> bool {
        self.add.contains(&true)
    }

    pub(super) fn strips_any(&self) -> bool {
        self.strip.contains(&true)
    }
}

/// What a game's added tags and split key are computed from.
pub(super) struct Facts<'a> {
    replayed: &'a Replayed,
    /// The mainline's position keys (the start first).
    keys: &'a [u64],
    /// Standard chess from the standard start (a game the opening table
    /// can name).
    standard_start: bool,
    /// The opening, classified once however many tags and keys ask.
    opening: OnceCell<Option<&'static openings::OpeningName>>,
}

impl<'a> Facts<'a> {
    pub(super) fn new(replayed: &'a Replayed, keys: &'a [u64], standard_start: bool) -> Self {
        Facts {
            replayed,
            keys,
            standard_start,
            opening: OnceCell::new(),
        }
    }

    /// The game's opening, named by its deepest position in the table.
    fn opening(&self) -> Option<&'static openings::OpeningName> {
        *self.opening.get_or_init(|| {
            let index = openings::index();
            let found = self.standard_start.then(|| index.classify(self.keys))??;
            index.name(found.name_id)
        })
    }
}

/// The value of one added tag, if the game has one.
fn value_of(tag: TagToAdd, tags: &[(String, String)], facts: &Facts<'_>) -> Option<String> {
    let tag_value = |name: &str| {
        tags.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let opening = || facts.opening();
    match tag {
        TagToAdd::Eco => opening().map(|o| o.eco.to_owned()),
        TagToAdd::Opening => opening().map(|o| o.family().to_owned()),
        TagToAdd::Variation => opening()
            .and_then(|o| o.name.split_once(':'))
            .map(|(_, variation)| variation.trim().to_owned()),
        TagToAdd::Plycount => Some(facts.replayed.plies.to_string()),
        TagToAdd::FinalFen => Some(facts.replayed.final_fen.clone()),
        TagToAdd::ResultByRule => facts.replayed.result_by_rule.map(|r| r.as_str().to_owned()),
        TagToAdd::TimeClass => {
            tag_value("TimeControl").map(|tc| TimeClass::of_tag(Some(tc)).as_str().to_owned())
        }
        TagToAdd::LichessId => tag_value("Site").and_then(lichess_id).map(str::to_owned),
    }
}

/// `--add-tags` on a game's tags; its `--split-by` key.
pub(super) fn enrich_tags(
    tags: &mut Vec<(String, String)>,
    facts: &Facts<'_>,
    (enrich, split_by): (Enrich, Option<SplitBy>),
    actions: &mut Vec<Action>,
) -> Option<String> {
    // The key from the game's own tags, as read.
    let key = split_by.and_then(|by| by.key_of(tags, facts));
    if enrich.adds_any() {
        add_tags(tags, facts, enrich, actions);
    }
    key
}

/// Adds the asked tags after the game's own; a tag the game has with
/// another value is kept and reported (`tag_disagrees`), or replaced and
/// reported (`tag_replaced`) with `--overwrite-tags`.
pub(super) fn add_tags(
    tags: &mut Vec<(String, String)>,
    facts: &Facts<'_>,
    enrich: Enrich,
    actions: &mut Vec<Action>,
) {
    let all = <TagToAdd as clap::ValueEnum>::value_variants();
    for &tag in all.iter().filter(|t| enrich.adds(**t)) {
        let Some(value) = value_of(tag, tags, facts) else {
            continue;
        };
        let name = tag.tag_name();
        // lichess writes the whole name as `Opening`: that agrees too.
        let full_name = match tag {
            TagToAdd::Opening => facts.opening().map(|o| o.name.to_owned()),
            _ => None,
        };
        match tags.iter_mut().find(|(n, _)| n == name) {
            None => tags.push((name.to_owned(), value)),
            Some((_, old)) if *old == value || full_name.as_deref() == Some(old.as_str()) => {}
            Some((_, old)) => {
                let detail = format!("{name}: tag {old:?}, pgnlake {value:?}");
                let kind = match enrich.overwrite_tags {
                    true => {
                        *old = value;
                        ActionKind::TagReplaced
                    }
                    false => ActionKind::TagDisagrees,
                };
                actions.push(Action::new(kind, None, detail));
            }
        }
    }
}

/// Leaves the parts `--strip` names out of `game`.
pub(super) fn strip(game: &mut ExportGame, enrich: Enrich) {
    if !enrich.strips_any() {
        return;
    }
    strip_comments(&mut game.leading_comments, enrich);
    strip_moves(&mut game.moves, enrich);
}

fn strip_moves(moves: &mut [ExportMove], enrich: Enrich) {
    for m in moves {
        if enrich.strips(StripPart::Nags) {
            m.nags.clear();
        }
        strip_comments(&mut m.comments, enrich);
        if enrich.strips(StripPart::Variations) {
            m.variations.clear();
        }
        for line in &mut m.variations {
            strip_line(line, enrich);
        }
    }
}

fn strip_line(line: &mut ExportLine, enrich: Enrich) {
    strip_comments(&mut line.leading_comments, enrich);
    strip_moves(&mut line.moves, enrich);
}

fn strip_comments(comments: &mut Vec<String>, enrich: Enrich) {
    if enrich.strips(StripPart::Comments) {
        comments.clear();
        return;
    }
    if enrich.strips(StripPart::Clocks) {
        for comment in comments.iter_mut() {
            *comment = without_clock_commands(comment);
        }
        comments.retain(|c| !c.is_empty());
    }
}

/// `comment` without its `[%clk …]`, `[%emt …]` and `[%eval …]` commands,
/// spaces tidied.
fn without_clock_commands(comment: &str) -> String {
    let mut kept = String::with_capacity(comment.len());
    let mut rest = comment;
    while let Some(at) = rest.find("[%") {
        let (before, from) = rest.split_at(at);
        kept.push_str(before);
        // `from` starts with `[%` (two ASCII bytes).
        let command = &from[2..];
        let clock = ["clk", "emt", "eval"].iter().any(|name| {
            command
                .strip_prefix(name)
                .is_some_and(|after| after.starts_with(|c: char| c.is_whitespace() || c == ']'))
        });
        match (clock, from.find(']')) {
            (true, Some(end)) => rest = &from[end + 1..],
            _ => {
                kept.push_str("[%");
                rest = command;
            }
        }
    }
    kept.push_str(rest);
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keys_are_safe_file_name_parts() {
        assert_eq!(
            file_key("Tata Steel 2024/Masters"),
            "Tata_Steel_2024_Masters"
        );
        assert_eq!(file_key("../x"), "_x");
        assert_eq!(file_key(""), "unknown");
        assert_eq!(SplitBy::parse("100"), Ok(SplitBy::Games(100)));
        assert!(SplitBy::parse("0").is_err() && SplitBy::parse("month").is_err());
    }

    #[test]
    fn clock_commands_go_and_the_rest_of_the_comment_stays() {
        assert_eq!(without_clock_commands("[%clk 0:02:59]"), "");
        assert_eq!(
            without_clock_commands("[%eval 0.17] [%clk 0:03:00] a good move"),
            "a good move"
        );
        assert_eq!(
            without_clock_commands("keep [%csl Ga4] [%emt 0:00:05] this"),
            "keep [%csl Ga4] this"
        );
        assert_eq!(without_clock_commands("[%clkx 1] [%clk"), "[%clkx 1] [%clk");
    }

    #[test]
    fn only_the_parts_asked_are_stripped() {
        let game = || ExportGame {
            leading_comments: vec!["before".into()],
            moves: vec![ExportMove {
                san: "e4".into(),
                nags: vec![1],
                comments: vec!["[%clk 0:01:00] fine".into(), "[%clk 0:01:00]".into()],
                variations: vec![ExportLine {
                    leading_comments: vec!["or".into()],
                    moves: vec![ExportMove {
                        san: "d4".into(),
                        nags: vec![2],
                        ..ExportMove::default()
                    }],
                }],
            }],
            ..ExportGame::default()
        };
        let mut clocks = game();
        strip(&mut clocks, Enrich::new(&[], false, &[StripPart::Clocks]));
        assert_eq!(clocks.moves[0].comments, ["fine"]);
        assert_eq!(clocks.leading_comments, ["before"]);
        let mut nags = game();
        strip(&mut nags, Enrich::new(&[], false, &[StripPart::Nags]));
        assert!(
            nags.moves[0].nags.is_empty() && nags.moves[0].variations[0].moves[0].nags.is_empty()
        );
        let mut all = game();
        let parts = [StripPart::Comments, StripPart::Variations];
        strip(&mut all, Enrich::new(&[], false, &parts));
        assert!(all.leading_comments.is_empty() && all.moves[0].comments.is_empty());
        assert!(all.moves[0].variations.is_empty());
        assert_eq!(all.moves[0].nags, [1]);
    }
}
