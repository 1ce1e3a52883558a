import { expect } from "chai";
import { DateTime } from "luxon";
import { dateDetails, isoWithOffset, isValidTimeZone, parseMysql, timezoneAbbr, toMysql, zoneForLuxon } from "../../lib/dates/format";

const winter = DateTime.fromISO("2026-01-15T12:00:00Z");
const summer = DateTime.fromISO("2026-07-15T12:00:00Z");

describe("dates/format: MySQL wall clocks", () => {
  it("formats the wall clock of a DateTime in its own zone", () => {
    expect(toMysql(DateTime.fromISO("2017-01-05T19:23:36Z").setZone("America/New_York"))).to.equal("2017-01-05 14:23:36");
    expect(toMysql(DateTime.fromISO("2017-01-05T19:23:36.900Z", { zone: "UTC" }))).to.equal("2017-01-05 19:23:36");
  });

  it("parses a wall clock in a zone", () => {
    const dt = parseMysql("2017-01-05 14:23:36", "America/New_York")!;
    expect(dt.toUTC().toISO()).to.equal("2017-01-05T19:23:36.000Z");
    expect(toMysql(dt)).to.equal("2017-01-05 14:23:36");
    expect(parseMysql("2017-01-05 14:23:36", "UTC+2")!.toUTC().toFormat("HH:mm")).to.equal("12:23");
  });

  it("rejects values that are not real date-times", () => {
    for (const bad of ["0000-00-00 00:00:00", "2030-02-30 10:00:00", "2030-01-01 24:00:00", "2030-01-01", "2030-01-01T10:00:00", "tomorrow"]) {
      expect(parseMysql(bad, "UTC"), bad).to.equal(null);
    }
  });

  it("resolves DST gaps and overlaps as PHP does", () => {
    expect(toMysql(parseMysql("2026-03-08 02:30:00", "America/New_York")!)).to.equal("2026-03-08 03:30:00");
    expect(parseMysql("2026-11-01 01:30:00", "America/New_York")!.toUTC().toFormat("HH:mm")).to.equal("05:30");
  });
});

describe("dates/format: dateDetails", () => {
  it("splits a wall clock into zero-padded strings", () => {
    expect(dateDetails("2017-01-05 14:23:36")).to.deep.equal({
      year: "2017",
      month: "01",
      day: "05",
      hour: "14",
      minutes: "23",
      seconds: "36",
    });
  });

  it("pads single digits and defaults a missing time to midnight", () => {
    expect(dateDetails("2017-1-5 4:3:6")).to.deep.equal({ year: "2017", month: "01", day: "05", hour: "04", minutes: "03", seconds: "06" });
    expect(dateDetails("2024-05-10")).to.deep.equal({ year: "2024", month: "05", day: "10", hour: "00", minutes: "00", seconds: "00" });
  });

  it("throws on something that is not a date", () => {
    expect(() => dateDetails("yesterday")).to.throw(TypeError);
  });
});

describe("dates/format: timezoneAbbr", () => {
  it("gives New York EST in winter and EDT in summer", () => {
    expect(timezoneAbbr("America/New_York", winter)).to.equal("EST");
    expect(timezoneAbbr("America/New_York", summer)).to.equal("EDT");
  });

  it("gives European, Australian and other letter abbreviations", () => {
    expect(timezoneAbbr("Europe/Rome", winter)).to.equal("CET");
    expect(timezoneAbbr("Europe/Rome", summer)).to.equal("CEST");
    expect(timezoneAbbr("Europe/London", summer)).to.equal("BST");
    expect(timezoneAbbr("Europe/London", winter)).to.equal("GMT");
    expect(timezoneAbbr("America/Los_Angeles", summer)).to.equal("PDT");
    expect(timezoneAbbr("Australia/Sydney", winter)).to.equal("AEDT");
    expect(timezoneAbbr("America/Juneau", winter)).to.equal("AKST");
    expect(timezoneAbbr("Asia/Kolkata", winter)).to.equal("IST");
    expect(timezoneAbbr("Asia/Hong_Kong", winter)).to.equal("HKT");
    expect(timezoneAbbr("Atlantic/Reykjavik", winter)).to.equal("GMT");
  });

  it("falls back to a numeric form where there is no letter abbreviation", () => {
    expect(timezoneAbbr("Europe/Moscow", winter)).to.equal("+03");
    expect(timezoneAbbr("Europe/Istanbul", summer)).to.equal("+03");
    expect(timezoneAbbr("Asia/Dubai", winter)).to.equal("+04");
    expect(timezoneAbbr("Asia/Kathmandu", winter)).to.equal("+0545");
    expect(timezoneAbbr("America/Sao_Paulo", winter)).to.equal("-03");
  });

  it("names UTC and offset labels", () => {
    expect(timezoneAbbr("UTC", winter)).to.equal("UTC");
    expect(timezoneAbbr("Etc/UTC", winter)).to.equal("UTC");
    expect(timezoneAbbr("UTC+0", winter)).to.equal("UTC");
    expect(timezoneAbbr("UTC+2", winter)).to.equal("+02");
    expect(timezoneAbbr("UTC-5:30", winter)).to.equal("-0530");
    expect(timezoneAbbr("UTC+5.5", winter)).to.equal("+0530");
  });
});

describe("dates/format: time-zone names", () => {
  it("accepts IANA names, UTC and WordPress offset labels", () => {
    for (const ok of ["America/New_York", "Europe/Rome", "Asia/Kolkata", "UTC", "UTC+2", "UTC-5:30", "UTC+0", "UTC+5.5", "UTC-12", "UTC+14"]) {
      expect(isValidTimeZone(ok), ok).to.equal(true);
    }
  });

  it("rejects everything else", () => {
    for (const bad of ["", "Mars/Olympus_Mons", "+05:00", "UTC+15", "UTC+2:75", "GMT+", "New York", "America/New_York "]) {
      expect(isValidTimeZone(bad), bad).to.equal(false);
    }
  });

  it("maps offset labels to luxon fixed offsets and leaves other names alone", () => {
    expect(zoneForLuxon("UTC+2")).to.equal("UTC+2");
    expect(zoneForLuxon("UTC-5:30")).to.equal("UTC-5:30");
    expect(zoneForLuxon("UTC+5.5")).to.equal("UTC+5:30");
    expect(zoneForLuxon("UTC+0")).to.equal("UTC");
    expect(zoneForLuxon("UTC")).to.equal("UTC");
    expect(zoneForLuxon("Europe/Rome")).to.equal("Europe/Rome");
    expect(zoneForLuxon(zoneForLuxon("UTC-5:30"))).to.equal("UTC-5:30");
    expect(DateTime.fromISO("2026-01-01T00:00:00Z").setZone(zoneForLuxon("UTC-5:30")).offset).to.equal(-330);
  });
});

describe("dates/format: isoWithOffset", () => {
  it("formats a wall clock with the zone's offset at that time", () => {
    expect(isoWithOffset("2017-01-05 14:23:36", "America/New_York")).to.equal("2017-01-05T14:23:36-05:00");
    expect(isoWithOffset("2017-07-05 14:23:36", "America/New_York")).to.equal("2017-07-05T14:23:36-04:00");
    expect(isoWithOffset("2017-01-05 14:23:36", "UTC")).to.equal("2017-01-05T14:23:36+00:00");
    expect(isoWithOffset("2017-01-05 14:23:36", "Asia/Kolkata")).to.equal("2017-01-05T14:23:36+05:30");
  });

  it("accepts offset labels in either form", () => {
    expect(isoWithOffset("2017-01-05 14:23:36", "UTC-5:30")).to.equal("2017-01-05T14:23:36-05:30");
    expect(isoWithOffset("2017-01-05 14:23:36", zoneForLuxon("UTC+2"))).to.equal("2017-01-05T14:23:36+02:00");
  });

  it("moves a wall clock in a DST gap forward like PHP", () => {
    expect(isoWithOffset("2026-03-08 02:30:00", "America/New_York")).to.equal("2026-03-08T03:30:00-04:00");
  });
});
