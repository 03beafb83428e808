//! Reading, by key: the page level of [`super`]: the bytes of a column
//! chunk's pages as read, their page headers and zstd payloads checked
//! and decompressed here, and where the offset index puts each page's
//! rows. Apart so that the reader (`super`) holds files and row groups,
//! this room pages and bytes.

use std::cell::RefCell;
use std::ops::Range;

use polars_parquet::parquet::metadata::ColumnChunkMetadata;
use polars_parquet_format::thrift::protocol::{TCompactInputProtocol, TCompactOutputProtocol};
use polars_parquet_format::{PageHeader, PageLocation, PageType};

/// The most bytes one page index structure (or page header) read from a
/// file may make the thrift decoder allocate.
pub(super) const THRIFT_LIMIT: usize = 64 << 20;

/// The largest page the decoders are given: a page header claiming more
/// is damaged (polars' own reader allows any size).
pub(super) const MAX_PAGE_BYTES: usize = 1 << 30;

/// A column chunk's pages read from the file: the bytes (its dictionary
/// page, if any, then data pages back to back), the values they hold, and
/// the row group's row the first data page starts at.
pub(super) struct ChunkBytes {
    pub bytes: Vec<u8>,
    pub values: i64,
    pub first_row: usize,
}

thread_local! {
    /// This thread's zstd context, kept from page to page: polars' page
    /// decoder makes one for every column chunk it reads (under load,
    /// creating them and their allocations were a sixth of the server's
    /// CPU).
    static ZSTD: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// `pages` (a column chunk's, back to back, zstd-compressed) with each
/// page's values decompressed here and its header saying so, for the
/// decoders to take as uncompressed; None when a page is of a kind whose
/// layout this does not rewrite (a v2 data page, whose levels are not
/// compressed): polars decompresses those.
pub(super) fn decompressed(pages: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let mut out = Vec::with_capacity(pages.len() * 4);
    let mut rest = pages;
    while !rest.is_empty() {
        let mut header = PageHeader::read_from_in_protocol(&mut TCompactInputProtocol::new(
            &mut rest,
            THRIFT_LIMIT,
        ))
        .map_err(|e| format!("damaged page header: {e}"))?;
        if header.type_ != PageType::DATA_PAGE && header.type_ != PageType::DICTIONARY_PAGE {
            return Ok(None);
        }
        let (Ok(size), Ok(values)) = (
            usize::try_from(header.compressed_page_size),
            usize::try_from(header.uncompressed_page_size),
        ) else {
            return Err("damaged page header: a negative size".into());
        };
        if size > rest.len() || values > MAX_PAGE_BYTES {
            return Err(format!(
                "damaged page header: {size} bytes compressed, {values} not"
            ));
        }
        let (page, after) = rest.split_at(size);
        rest = after;
        header.compressed_page_size = header.uncompressed_page_size;
        // Any checksum was of the compressed bytes.
        header.crc = None;
        header
            .write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut out))
            .map_err(|e| format!("page header: {e}"))?;
        let start = out.len();
        out.resize(start + values, 0);
        let written = ZSTD.with(|cell| {
            let mut slot = cell.borrow_mut();
            let decompressor = match &mut *slot {
                Some(decompressor) => decompressor,
                None => slot.insert(zstd::bulk::Decompressor::new()?),
            };
            decompressor.decompress_to_buffer(page, &mut out[start..])
        });
        match written {
            Ok(n) if n == values => {}
            Ok(n) => return Err(format!("a page of {n} bytes, its header says {values}")),
            Err(e) => return Err(format!("damaged zstd page: {e}")),
        }
    }
    Ok(Some(out))
}

/// The rows of page `page` within its row group of `group_rows` rows
/// (the locations checked by `page_locations`).
pub(super) fn page_rows(
    locations: &[PageLocation],
    page: usize,
    group_rows: usize,
) -> Range<usize> {
    let row = |l: &PageLocation| usize::try_from(l.first_row_index).unwrap_or(0);
    let start = locations.get(page).map_or(group_rows, row);
    let end = locations.get(page + 1).map_or(group_rows, row);
    start..end.max(start)
}

/// Where a column chunk's bytes are (its dictionary page first, if any),
/// checked to lie in a file of `file_len` bytes: (offset, length).
pub(super) fn chunk_range(
    chunk: &ColumnChunkMetadata,
    file_len: u64,
) -> Result<(i64, i64), String> {
    let start = chunk
        .dictionary_page_offset()
        .unwrap_or(chunk.data_page_offset());
    let length = chunk.compressed_size();
    let inside = start >= 0
        && length >= 0
        && start
            .checked_add(length)
            .and_then(|end| u64::try_from(end).ok())
            .is_some_and(|end| end <= file_len);
    match inside {
        true => Ok((start, length)),
        false => Err(format!(
            "damaged column chunk metadata: {length} bytes at {start}"
        )),
    }
}

/// `bytes` are one dictionary page, header and all: what comes before a
/// column chunk's first data page.
pub(super) fn check_dictionary_page(bytes: &[u8]) -> Result<(), String> {
    let mut rest = bytes;
    let header =
        PageHeader::read_from_in_protocol(&mut TCompactInputProtocol::new(&mut rest, THRIFT_LIMIT))
            .map_err(|e| format!("damaged dictionary page header: {e}"))?;
    let whole = usize::try_from(header.compressed_page_size).ok() == Some(rest.len());
    match header.type_ == PageType::DICTIONARY_PAGE && whole {
        true => Ok(()),
        false => Err("before the first data page: not one dictionary page".into()),
    }
}
