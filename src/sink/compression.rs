//! Sink stage, the codec of the Parquet pages (`--compression`): zstd at a
//! level, LZ4 or none, chosen per run for every table it writes.

use std::fmt;
use std::str::FromStr;

/// How every page of a run's tables is compressed. The default, zstd level
/// 1, was chosen by measurement (docs/performance.md, "Choosing the
/// compression"): a few per cent of the import's CPU against tables a fifth
/// to a half smaller than its fast levels or LZ4 give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// zstd at this level (1..=22).
    Zstd(i32),
    /// LZ4 as Parquet's `LZ4_RAW` (not the deprecated Hadoop framing).
    Lz4,
    /// Pages stored as encoded.
    None,
}

/// zstd's levels as Parquet writers (polars, parquet-mr) accept them.
const ZSTD_LEVELS: std::ops::RangeInclusive<i32> = 1..=22;

impl Default for Compression {
    fn default() -> Self {
        Compression::Zstd(1)
    }
}

impl FromStr for Compression {
    type Err = String;

    /// `zstd` (level 1), `zstd:LEVEL`, `lz4` or `none`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let expected = "expected zstd, zstd:LEVEL (1-22), lz4 or none";
        match text.trim().to_ascii_lowercase().as_str() {
            "zstd" => Ok(Compression::default()),
            "lz4" => Ok(Compression::Lz4),
            "none" => Ok(Compression::None),
            other => {
                let level = other
                    .strip_prefix("zstd:")
                    .and_then(|level| level.parse::<i32>().ok())
                    .ok_or_else(|| format!("`{text}`: {expected}"))?;
                match ZSTD_LEVELS.contains(&level) {
                    true => Ok(Compression::Zstd(level)),
                    false => Err(format!("`{text}`: zstd's level must be 1-22")),
                }
            }
        }
    }
}

impl fmt::Display for Compression {
    /// As `--compression` takes it (and the Spark job passes it on).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Compression::Zstd(level) => write!(f, "zstd:{level}"),
            Compression::Lz4 => f.write_str("lz4"),
            Compression::None => f.write_str("none"),
        }
    }
}

#[cfg(feature = "tables")]
impl Compression {
    /// The codec as polars' Parquet writer takes it.
    pub(crate) fn to_polars(
        self,
    ) -> polars::prelude::PolarsResult<polars::prelude::ParquetCompression> {
        use polars::prelude::ParquetCompression;
        Ok(match self {
            Compression::Zstd(level) => {
                ParquetCompression::Zstd(Some(polars_parquet::write::ZstdLevel::try_new(level)?))
            }
            Compression::Lz4 => ParquetCompression::Lz4Raw,
            Compression::None => ParquetCompression::Uncompressed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_round_trips_through_its_display() {
        for (text, expected) in [
            ("zstd", Compression::Zstd(1)),
            ("zstd:1", Compression::Zstd(1)),
            ("ZSTD:19", Compression::Zstd(19)),
            ("zstd:22", Compression::Zstd(22)),
            ("lz4", Compression::Lz4),
            ("none", Compression::None),
        ] {
            let parsed: Compression = text.parse().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(parsed, expected, "{text}");
            assert_eq!(parsed.to_string().parse::<Compression>(), Ok(parsed));
        }
        assert_eq!(Compression::default().to_string(), "zstd:1");
    }

    #[test]
    fn levels_out_of_range_and_other_codecs_are_refused_by_name() {
        for text in [
            "zstd:0", "zstd:-1", "zstd:23", "zstd:", "zstd:x", "gzip", "snappy", "",
        ] {
            let error = text.parse::<Compression>().err();
            assert!(
                error
                    .as_deref()
                    .is_some_and(|e| e.contains(&format!("`{text}`"))),
                "{text}: {error:?}"
            );
        }
    }
}
