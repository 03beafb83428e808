//! Replay stage, search queries: scoutfish's JSON query language read into
//! conditions (docs/search.md says what each rule means and where pgnlake
//! differs from scoutfish). Everything a query says is checked here, once:
//! an unknown key, a value of the wrong kind, a sub-FEN, material code or
//! SAN that does not parse is an error naming it, never a rule dropped.

use serde_json::{Map, Value};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{Board, ByColor, ByRole, CastlingMode, Color, Role};
use shakmaty::{EnPassantMode, Position};
use thiserror::Error;

use super::rules::{
    Imbalance, MaterialCount, PositionKey, ResultCode, ResultType, Rule, ScoutMove, SubFen,
};

/// A query that cannot be run, and why (one line).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("bad search query: {0}")]
pub struct BadQuery(pub String);

fn bad(message: impl Into<String>) -> BadQuery {
    BadQuery(message.into())
}

/// One condition of a query: rules that must all hold at one position.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    pub rules: Vec<Rule>,
    /// The streak the condition belongs to (its number in the query, from
    /// 1), None outside streaks.
    pub streak: Option<u32>,
}

/// A query: its conditions flattened in order (a sequence's and its
/// streaks'), and which of the matching games to list.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub conditions: Vec<Condition>,
    pub skip: u64,
    pub limit: Option<u64>,
}

impl Query {
    /// Reads a query: scoutfish's JSON, or a plain FEN (one exact
    /// position, as the `fen` rule).
    pub fn parse(text: &str) -> Result<Query, BadQuery> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(bad("the query is empty"));
        }
        if !trimmed.starts_with('{') {
            let rule = Rule::Fen(vec![position_key(trimmed).map_err(|e| {
                bad(format!(
                    "{trimmed:?} is neither a JSON object nor a FEN: {e}"
                ))
            })?]);
            return Ok(Query {
                conditions: vec![Condition {
                    rules: vec![rule],
                    streak: None,
                }],
                skip: 0,
                limit: None,
            });
        }
        let value: Value =
            serde_json::from_str(trimmed).map_err(|e| bad(format!("not JSON: {e}")))?;
        let Value::Object(object) = value else {
            return Err(bad("the query is not a JSON object"));
        };
        Query::from_object(&object)
    }

    fn from_object(object: &Map<String, Value>) -> Result<Query, BadQuery> {
        let mut rest = object.clone();
        let skip = take_count(&mut rest, "skip")?.unwrap_or(0);
        let limit = take_count(&mut rest, "limit")?;
        let mut streaks = 0;
        let conditions = match (rest.remove("sequence"), rest.remove("streak")) {
            (Some(_), Some(_)) => {
                return Err(bad(
                    "a query holds a \"sequence\" or a \"streak\", not both",
                ));
            }
            (Some(sequence), None) => {
                only_them(&rest, "sequence")?;
                sequence_of(&sequence, &mut streaks)?
            }
            (None, Some(streak)) => {
                only_them(&rest, "streak")?;
                streak_of(&streak, &mut streaks)?
            }
            (None, None) => vec![condition_of(&rest, None)?],
        };
        Ok(Query {
            conditions,
            skip,
            limit,
        })
    }

    /// The query's rules, every condition's.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.conditions.iter().flat_map(|c| c.rules.iter())
    }
}

/// Next to a sequence or a streak, only `skip` and `limit`.
fn only_them(rest: &Map<String, Value>, what: &str) -> Result<(), BadQuery> {
    match rest.keys().next() {
        Some(key) => Err(bad(format!(
            "{key:?} next to {what:?}: rules go inside the {what}'s conditions"
        ))),
        None => Ok(()),
    }
}

fn take_count(object: &mut Map<String, Value>, key: &str) -> Result<Option<u64>, BadQuery> {
    match object.remove(key) {
        None => Ok(None),
        Some(value) => value
            .as_u64()
            .map(Some)
            .ok_or_else(|| bad(format!("{key:?} is {value}, not a whole number"))),
    }
}

fn list<'a>(value: &'a Value, what: &str) -> Result<&'a [Value], BadQuery> {
    match value {
        Value::Array(items) if !items.is_empty() => Ok(items),
        Value::Array(_) => Err(bad(format!("{what:?} is an empty list"))),
        _ => Err(bad(format!("{what:?} is {value}, not a list"))),
    }
}

fn sequence_of(value: &Value, streaks: &mut u32) -> Result<Vec<Condition>, BadQuery> {
    let mut conditions = Vec::new();
    for item in list(value, "sequence")? {
        let Value::Object(object) = item else {
            return Err(bad(format!("a sequence item is {item}, not an object")));
        };
        if let Some(streak) = object.get("streak") {
            if object.len() > 1 {
                return Err(bad(
                    "a streak in a sequence is an object of \"streak\" alone",
                ));
            }
            conditions.extend(streak_of(streak, streaks)?);
        } else {
            conditions.push(condition_of(object, None)?);
        }
    }
    Ok(conditions)
}

fn streak_of(value: &Value, streaks: &mut u32) -> Result<Vec<Condition>, BadQuery> {
    *streaks += 1;
    let id = *streaks;
    list(value, "streak")?
        .iter()
        .map(|item| match item {
            Value::Object(object) => condition_of(object, Some(id)),
            other => Err(bad(format!("a streak item is {other}, not an object"))),
        })
        .collect()
}

/// The rules of one condition object, in scoutfish's order (`result`
/// first: it rules the whole game out).
fn condition_of(object: &Map<String, Value>, streak: Option<u32>) -> Result<Condition, BadQuery> {
    const KEYS: [&str; 12] = [
        "result",
        "result-type",
        "sub-fen",
        "material",
        "imbalance",
        "white-move",
        "black-move",
        "captured",
        "moved",
        "stm",
        "pass",
        "fen",
    ];
    for key in object.keys() {
        if key == "sequence" || key == "streak" {
            return Err(bad(format!(
                "{key:?} inside a condition: a sequence holds conditions and streaks, a streak conditions"
            )));
        }
        if key == "skip" || key == "limit" {
            return Err(bad(format!("{key:?} goes at the query's top level")));
        }
        if !KEYS.contains(&key.as_str()) {
            return Err(bad(format!(
                "unknown rule {key:?} (rules: {})",
                KEYS.join(", ")
            )));
        }
    }
    let mut rules = Vec::new();
    if let Some(value) = object.get("result") {
        rules.push(Rule::Result(strings(value, "result", |s| {
            ResultCode::parse(s)
                .ok_or_else(|| bad(format!("\"result\" {s:?} is not 1-0, 0-1, 1/2-1/2 or *")))
        })?));
    }
    if let Some(value) = object.get("result-type") {
        let kind = match value.as_str() {
            Some("mate") => ResultType::Mate,
            Some("stalemate") => ResultType::Stalemate,
            _ => {
                return Err(bad(format!(
                    "\"result-type\" is {value}, not \"mate\" or \"stalemate\""
                )));
            }
        };
        rules.push(Rule::ResultType(kind));
    }
    if let Some(value) = object.get("sub-fen") {
        rules.push(Rule::SubFen(strings(value, "sub-fen", sub_fen)?));
    }
    if let Some(value) = object.get("material") {
        rules.push(Rule::Material(strings(value, "material", |s| {
            material_code(s).map(MaterialCount::of)
        })?));
    }
    if let Some(value) = object.get("imbalance") {
        rules.push(Rule::Imbalance(strings(value, "imbalance", imbalance)?));
    }
    let mut moves = Vec::new();
    for (key, color) in [("white-move", Color::White), ("black-move", Color::Black)] {
        if let Some(value) = object.get(key) {
            moves.extend(strings(value, key, |s| scout_move(s, color, key))?);
        }
    }
    if !moves.is_empty() {
        rules.push(Rule::Move(moves));
    }
    if let Some(value) = object.get("captured") {
        let roles = roles(value, "captured")?;
        rules.push(match roles.is_empty() {
            true => Rule::Quiet,
            false => Rule::Captured(roles),
        });
    }
    if let Some(value) = object.get("moved") {
        let roles = roles(value, "moved")?;
        if roles.is_empty() {
            return Err(bad("\"moved\" names no piece (letters of KQRBNP)"));
        }
        rules.push(Rule::Moved(roles));
    }
    if let Some(value) = object.get("stm") {
        let side = value.as_str().map(str::to_ascii_lowercase);
        rules.push(Rule::SideToMove(match side.as_deref() {
            Some("white") => Color::White,
            Some("black") => Color::Black,
            _ => {
                return Err(bad(format!(
                    "\"stm\" is {value}, not \"white\" or \"black\""
                )));
            }
        }));
    }
    if object.contains_key("pass") {
        rules.push(Rule::Pass);
    }
    if let Some(value) = object.get("fen") {
        rules.push(Rule::Fen(strings(value, "fen", |s| {
            position_key(s).map_err(|e| bad(format!("\"fen\" {s:?}: {e}")))
        })?));
    }
    if rules.is_empty() {
        return Err(bad("a condition without rules ({}) would match nothing"));
    }
    Ok(Condition { rules, streak })
}

/// A rule's value as a list of strings (one string is a list of one),
/// each read by `read`.
fn strings<T>(
    value: &Value,
    key: &str,
    read: impl Fn(&str) -> Result<T, BadQuery>,
) -> Result<Vec<T>, BadQuery> {
    let items: Vec<&Value> = match value {
        Value::Array(items) if !items.is_empty() => items.iter().collect(),
        Value::Array(_) => return Err(bad(format!("{key:?} is an empty list"))),
        other => vec![other],
    };
    items
        .into_iter()
        .map(|item| match item.as_str() {
            Some(text) => read(text),
            None => Err(bad(format!("{key:?} holds {item}, not a string"))),
        })
        .collect()
}

/// `"KP"`, `"qr"`: piece kinds (scoutfish's `moved` and `captured`).
fn roles(value: &Value, key: &str) -> Result<Vec<Role>, BadQuery> {
    let Some(text) = value.as_str() else {
        return Err(bad(format!(
            "{key:?} is {value}, not a string of piece letters"
        )));
    };
    let mut roles = Vec::new();
    for ch in text.chars() {
        let role = Role::from_char(ch.to_ascii_lowercase()).ok_or_else(|| {
            bad(format!(
                "{key:?} {text:?}: {ch:?} is not a piece letter (KQRBNP)"
            ))
        })?;
        if !roles.contains(&role) {
            roles.push(role);
        }
    }
    Ok(roles)
}

/// A sub-FEN: the board part of a FEN (the rest, when given, is ignored).
fn sub_fen(text: &str) -> Result<SubFen, BadQuery> {
    let board_part = text.split_whitespace().next().unwrap_or("");
    let board = Board::from_ascii_board_fen(board_part.as_bytes())
        .map_err(|e| bad(format!("\"sub-fen\" {text:?} is not a board: {e}")))?;
    Ok(SubFen::of(&board))
}

/// `KBNKP`: White's pieces up to the second `K`, Black's from it on.
fn material_code(code: &str) -> Result<ByColor<ByRole<u8>>, BadQuery> {
    let wrong = |why: &str| bad(format!("material {code:?}: {why}"));
    let rest = code
        .strip_prefix('K')
        .ok_or_else(|| wrong("a code starts with White's K (KBNKP)"))?;
    let Some(split) = rest.find('K') else {
        return Err(wrong(
            "no black K (KBNKP: White's pieces, then Black's from the second K)",
        ));
    };
    let (white, black) = (&rest[..split], &rest[split + 1..]);
    let mut material = ByColor::<ByRole<u8>>::default();
    material.white.king = 1;
    material.black.king = 1;
    for (side, letters) in [(Color::White, white), (Color::Black, black)] {
        for ch in letters.chars() {
            let role = match ch {
                'Q' | 'R' | 'B' | 'N' | 'P' => Role::from_char(ch.to_ascii_lowercase()),
                'K' => return Err(wrong("more than one K a side")),
                _ => None,
            }
            .ok_or_else(|| wrong(&format!("{ch:?} is not a piece letter (QRBNP)")))?;
            let count = material.get_mut(side).get_mut(role);
            *count = count.saturating_add(1);
        }
    }
    Ok(material)
}

/// `PPvN`: White's pieces before the `v`, Black's after it.
fn imbalance(code: &str) -> Result<Imbalance, BadQuery> {
    let Some((white, black)) = code.split_once('v') else {
        return Err(bad(format!(
            "imbalance {code:?}: no 'v' between White's pieces and Black's (PPvN)"
        )));
    };
    let material = material_code(&format!("K{white}K{black}"))
        .map_err(|e| bad(format!("imbalance {code:?}: {}", e.0)))?;
    Ok(Imbalance::of(&material))
}

/// A SAN as scoutfish reads it for `white-move` and `black-move`.
fn scout_move(text: &str, color: Color, key: &str) -> Result<ScoutMove, BadQuery> {
    let wrong = |why: &str| bad(format!("{key:?} {text:?}: {why}"));
    let san = San::from_ascii(text.trim_end_matches(['+', '#', '!', '?']).as_bytes())
        .map_err(|_| wrong("not a move in SAN"))?;
    match san {
        San::Normal {
            role,
            file,
            rank,
            to,
            ..
        } => Ok(ScoutMove::Piece {
            color,
            role,
            to,
            // A pawn's capture file is not compared (scoutfish's `dxe5`
            // is any pawn move to e5).
            file: file.filter(|_| role != Role::Pawn),
            rank: rank.filter(|_| role != Role::Pawn),
        }),
        San::Castle(side) => Ok(ScoutMove::Castle { color, side }),
        San::Put { role, to } => Ok(ScoutMove::Put { color, role, to }),
        San::Null => Err(wrong("a null move is never played")),
    }
}

/// A full FEN as the `fen` rule compares positions.
fn position_key(text: &str) -> Result<PositionKey, String> {
    let fen = Fen::from_ascii(text.trim().as_bytes()).map_err(|e| e.to_string())?;
    let pos: shakmaty::Chess = fen
        .into_position(CastlingMode::Chess960)
        .map_err(|e| e.to_string())?;
    Ok(PositionKey {
        board: pos.board().clone(),
        turn: pos.turn(),
        castling: pos.castles().castling_rights(),
        en_passant: pos.ep_square(EnPassantMode::Legal),
    })
}
