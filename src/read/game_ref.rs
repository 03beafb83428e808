//! Reading, a game's id: where one game of an import's folder or a lake
//! is (`17` in a folder, `IMPORT:17` in a lake, as `explore` and the
//! server write it), so that every reader of one game (the server's PGN
//! and game page, `export`'s one-game path) parses and prints it alike.

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

    /// The form an id takes in a lake or a folder, for messages.
    pub(crate) fn form(lake: bool) -> &'static str {
        match lake {
            true => "IMPORT:GAME_ID",
            false => "GAME_ID",
        }
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
}
