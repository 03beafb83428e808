//! Serve, games as lila-openingexplorer names them: a game's id in a URL
//! (`ID` in an import's folder, `IMPORT:ID` in a lake, as `explore` writes it), and the JSON of a
//! game in `topGames`, `recentGames` and `moves[].game`.

use serde::Serialize;

use crate::model::TimeClass;
use crate::read::explore::TopGame;

/// Where a game is: its lake import (None in an import's folder) and its
/// `games.game_id` there.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct GameRef {
    pub import: Option<String>,
    pub id: i64,
}

impl GameRef {
    /// A game's id as a URL names it: `17`, or `2024-01:17` in a lake (an
    /// import's name never holds `:`).
    pub(crate) fn parse(text: &str, lake: bool) -> Option<GameRef> {
        let (import, id) = match (lake, text.rsplit_once(':')) {
            (true, Some((import, id))) => {
                crate::lake::check_name(import).ok()?;
                (Some(import.to_owned()), id)
            }
            (false, None) => (None, text),
            _ => return None,
        };
        let id = id.parse::<i64>().ok().filter(|&id| id >= 0)?;
        Some(GameRef { import, id })
    }
}

impl std::fmt::Display for GameRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.import {
            Some(import) => write!(f, "{import}:{}", self.id),
            None => write!(f, "{}", self.id),
        }
    }
}

/// A player of a game.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Player {
    /// `?` when the game names none (PGN's unknown).
    pub name: String,
    pub rating: Option<i32>,
}

/// A game, as lila-openingexplorer writes it (its fields in their order:
/// `black` before `white`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ApiGame {
    pub id: String,
    /// `white`, `black`, or null for a draw or an unfinished game.
    pub winner: Option<&'static str>,
    /// lichess's name of the game's speed (absent on `/masters`, and for a
    /// game whose clock is unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<&'static str>,
    /// `rated` or `casual`, from lichess's `Event` (absent on `/masters`
    /// and when the event does not say).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<&'static str>,
    pub black: Player,
    pub white: Player,
    pub year: Option<i32>,
    pub month: Option<String>,
}

/// A game with the move it played from the position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct GameWithUci {
    pub uci: String,
    #[serde(flatten)]
    pub game: ApiGame,
}

impl ApiGame {
    /// `game` as `/lichess` and `/player` write it (`masters`: without
    /// speed and mode).
    pub(crate) fn of(game: &TopGame, masters: bool) -> ApiGame {
        let reference = GameRef {
            import: game.import.clone(),
            id: game.game_id,
        };
        let winner = match game.result.as_deref() {
            Some("1-0") => Some("white"),
            Some("0-1") => Some("black"),
            _ => None,
        };
        let player = |name: &Option<String>, rating: Option<i32>| Player {
            name: name.clone().unwrap_or_else(|| "?".to_owned()),
            rating,
        };
        ApiGame {
            id: reference.to_string(),
            winner,
            speed: (!masters)
                .then(|| {
                    game.time_class
                        .parse::<TimeClass>()
                        .ok()
                        .and_then(lichess_speed)
                })
                .flatten(),
            mode: (!masters).then(|| mode_of(game.event.as_deref())).flatten(),
            black: player(&game.black, game.black_elo),
            white: player(&game.white, game.white_elo),
            year: game.year,
            month: game.month.clone(),
        }
    }
}

/// lichess's name of a speed (`ultraBullet`); None for `unknown`.
pub(crate) fn lichess_speed(class: TimeClass) -> Option<&'static str> {
    Some(match class {
        TimeClass::UltraBullet => "ultraBullet",
        TimeClass::Bullet => "bullet",
        TimeClass::Blitz => "blitz",
        TimeClass::Rapid => "rapid",
        TimeClass::Classical => "classical",
        TimeClass::Correspondence => "correspondence",
        TimeClass::Unknown => return None,
    })
}

/// The speed a `speeds` item names: lichess's names, or pgnlake's
/// (`ultrabullet`, `unknown`).
pub(crate) fn speed_of_name(name: &str) -> Option<TimeClass> {
    TimeClass::ALL
        .into_iter()
        .find(|&class| lichess_speed(class) == Some(name) || class.as_str() == name)
}

/// `rated` or `casual`, as lichess's `Event` says (`Rated Blitz game`).
pub(crate) fn mode_of(event: Option<&str>) -> Option<&'static str> {
    let event = event?.to_ascii_lowercase();
    if event.starts_with("rated ") {
        Some("rated")
    } else if event.starts_with("casual ") {
        Some("casual")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_the_import_in_a_lake_only() {
        let lake = GameRef::parse("2024-01:17", true);
        assert_eq!(
            lake,
            Some(GameRef {
                import: Some("2024-01".into()),
                id: 17
            })
        );
        assert_eq!(lake.map(|g| g.to_string()).as_deref(), Some("2024-01:17"));
        assert_eq!(GameRef::parse("17", false).map(|g| g.id), Some(17));
        for bad in ["17", "../x:1", "a:-1", "a:b", "_compacted:3"] {
            assert_eq!(GameRef::parse(bad, true), None, "{bad}");
        }
        assert_eq!(GameRef::parse("a:1", false), None);
    }

    #[test]
    fn speeds_are_read_in_lichess_names_and_pgnlake_names() {
        assert_eq!(speed_of_name("ultraBullet"), Some(TimeClass::UltraBullet));
        assert_eq!(speed_of_name("ultrabullet"), Some(TimeClass::UltraBullet));
        assert_eq!(speed_of_name("unknown"), Some(TimeClass::Unknown));
        assert_eq!(speed_of_name("fast"), None);
        assert_eq!(mode_of(Some("Rated Blitz game")), Some("rated"));
        assert_eq!(mode_of(Some("Casual Rapid game")), Some("casual"));
        assert_eq!(mode_of(Some("Wijk aan Zee")), None);
    }
}
