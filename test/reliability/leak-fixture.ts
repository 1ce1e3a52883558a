import type { Fixture } from "../../lib/fixtures";

/**
 * A site where every record a reader may not see carries the marker
 * `ZZLEAK` in its content, so one text search over a response finds any
 * leak, whatever member or header it hides in. Published, password-protected
 * records carry it only in the members that masking blanks (calendar-api.md
 * §1.3); titles of protected records stay visible by design.
 *
 * Hidden descriptions also carry the plain word `hush`, to search for it
 * without the search term (echoed in `rest_url`) matching the marker.
 *
 * Slugs never carry the marker: a by-slug request sends the slug itself,
 * and an error message that repeats it leaks nothing.
 */
export const MARKER = /ZZLEAK/i;

export const EVENT_PASSWORD = "pw-event-QQ7";
export const VENUE_PASSWORD = "pw-venue-QQ7";

export const leakFixture: Fixture = {
  version: 1,
  name: "leaks",
  options: { posts_per_page: 10 },
  users: [
    { login: "admin", role: "administrator", email: "root-admin@leak-test.invalid", app_password: "admin-app-pass-77" },
    { login: "editor", role: "editor", email: "ed@leak-test.invalid", app_password: "editor-app-pass-77" },
    { login: "author", role: "author", email: "au@leak-test.invalid", app_password: "author-app-pass-77" },
    { login: "contributor", role: "contributor", email: "co@leak-test.invalid", app_password: "contributor-app-pass-77" },
    { login: "subscriber", role: "subscriber", email: "sub@leak-test.invalid", app_password: "subscriber-app-pass-77" },
  ],
  venues: [
    { key: "v-pub", name: "Public Hall", description: "Open to all.", city: "Rome", author: "editor" },
    { key: "v-draft", name: "ZZLEAK Venue Draft", slug: "hidden-venue-draft", description: "ZZLEAK-vd hush", city: "ZZLEAKcity", status: "draft", author: "editor" },
    { key: "v-pending", name: "ZZLEAK Venue Pending", slug: "hidden-venue-pending", description: "ZZLEAK-vp hush", status: "pending", author: "contributor" },
    { key: "v-private", name: "ZZLEAK Venue Private", slug: "hidden-venue-private", description: "ZZLEAK-vpriv hush", status: "private", author: "editor" },
    { key: "v-future", name: "ZZLEAK Venue Future", slug: "hidden-venue-future", description: "ZZLEAK-vfut hush", status: "future", published: "+40d 10:00", author: "editor" },
    { key: "v-protected", name: "Protected Venue", slug: "protected-venue", description: "ZZLEAK-vprot hush", address: "ZZLEAK street 1", phone: "ZZLEAK-555", password: VENUE_PASSWORD, author: "editor" },
    // Published venues whose only events the public may not see.
    { key: "v-lonely", name: "Lonely Hall", slug: "lonely-hall", description: "Only hidden events here.", author: "editor" },
    { key: "v-upcoming-hidden", name: "Quiet Hall", slug: "quiet-hall", description: "Only hidden upcoming events here.", author: "editor" },
  ],
  organizers: [
    { key: "o-pub", name: "Public Org", email: "hello@org.example", author: "editor" },
    { key: "o-draft", name: "ZZLEAK Org Draft", slug: "hidden-org-draft", description: "ZZLEAK-od hush", email: "zzleak-od@org.example", status: "draft", author: "editor" },
    { key: "o-private", name: "ZZLEAK Org Private", slug: "hidden-org-private", description: "ZZLEAK-opriv hush", status: "private", author: "author" },
    { key: "o-protected", name: "Protected Org", slug: "protected-org", description: "ZZLEAK-oprot hush", email: "zzleak-oprot@org.example", phone: "ZZLEAK-556", password: VENUE_PASSWORD, author: "editor" },
    { key: "o-lonely", name: "Lonely Org", slug: "lonely-org", author: "editor" },
  ],
  categories: [
    { key: "c-pub", name: "Concerts" },
    { key: "c-hidden", name: "Backstage", slug: "backstage" },
  ],
  tags: [
    { key: "t-pub", name: "open-air" },
    { key: "t-hidden", name: "internal" },
  ],
  events: [
    // Published, but linked to hidden venues and organizers: the embedded records must not show them.
    { key: "e-pub", title: "Public Concert", description: "Everyone welcome.", start: "+5d 20:00", end: "+5d 22:00", venue: "v-draft", organizers: ["o-draft", "o-pub"], categories: ["c-pub"], tags: ["t-pub"], author: "editor" },
    { key: "e-pub2", title: "Public Lecture", description: "Everyone welcome too.", start: "+6d 20:00", end: "+6d 22:00", venue: "v-pub", organizers: ["o-private"], categories: ["c-pub"], author: "author" },
    { key: "e-draft", title: "ZZLEAK Draft Event", slug: "hidden-draft-event", description: "ZZLEAK-ed hush", start: "+7d 10:00", end: "+7d 12:00", status: "draft", venue: "v-lonely", organizers: ["o-lonely"], categories: ["c-hidden"], tags: ["t-hidden"], author: "editor" },
    { key: "e-pending", title: "ZZLEAK Pending Event", slug: "hidden-pending-event", description: "ZZLEAK-ep hush", start: "+8d 10:00", end: "+8d 12:00", status: "pending", venue: "v-lonely", categories: ["c-hidden"], author: "contributor" },
    { key: "e-private", title: "ZZLEAK Private Event", slug: "hidden-private-event", description: "ZZLEAK-epriv hush", start: "+9d 10:00", end: "+9d 12:00", status: "private", venue: "v-upcoming-hidden", categories: ["c-hidden"], tags: ["t-hidden"], author: "author" },
    { key: "e-future", title: "ZZLEAK Future Event", slug: "hidden-future-event", description: "ZZLEAK-efut hush", start: "+50d 10:00", end: "+50d 12:00", status: "future", published: "+30d 09:00", venue: "v-upcoming-hidden", categories: ["c-hidden"], author: "editor" },
    { key: "e-trash", title: "ZZLEAK Trashed Event", slug: "hidden-trashed-event", description: "ZZLEAK-etrash hush", start: "+10d 10:00", end: "+10d 12:00", status: "trash", categories: ["c-hidden"], author: "editor" },
    { key: "e-protected", title: "Protected Event", slug: "protected-event", description: "ZZLEAK-eprot hush", excerpt: "ZZLEAK-eprot-x", cost: "ZZLEAK 99", website: "https://zzleak.example", start: "+11d 10:00", end: "+11d 12:00", password: EVENT_PASSWORD, venue: "v-protected", organizers: ["o-protected"], categories: ["c-pub"], tags: ["t-pub"], author: "editor" },
  ],
};
