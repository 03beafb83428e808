//! Model, the civil calendar: days since 1970-01-01 to and from a year,
//! month and day (proleptic Gregorian), for dates read from tags and the
//! months the tables keep as the first day of the month.

/// Days since 1970-01-01 of a date (Howard Hinnant's `days_from_civil`);
/// months 1–12, any year.
pub(crate) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let shifted_month = (month + 9) % 12;
    let day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// Days since 1970-01-01 of the first day of a month (1–12).
pub(crate) fn first_day_of_month(year: i64, month: i64) -> i64 {
    days_from_civil(year, month, 1)
}

/// The (year, month, day) of a count of days since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`, the inverse of `days_from_civil`).
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_round_trip_across_eras_and_leap_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(first_day_of_month(2025, 5), 20_209);
        for days in [-800_000, -719_468, -1, 0, 59, 11_016, 20_209, 1_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(days_from_civil(2000, 2, 29)), (2000, 2, 29));
        for (year, month) in [
            (1970, 1),
            (2025, 5),
            (1600, 2),
            (2000, 2),
            (2400, 12),
            (1, 3),
        ] {
            let days = first_day_of_month(year, month);
            assert_eq!(civil_from_days(days), (year, month, 1));
            let before = if month == 1 { 12 } else { month - 1 };
            assert_eq!(civil_from_days(days - 1).1, before);
        }
    }
}
