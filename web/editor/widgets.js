// Widget groups: what a plugin adds to the generated forms for what is
// special about its post types (the calendar's dates, venue, recurrence…).
// The generic form renders every argument of a write route as a field,
// except those a group that applies to the type claims in `fields`.
//
// A group: {
//   id: string,
//   legend: string,                 // the fieldset's legend
//   appliesTo(type) -> boolean,     // type: an entry of GET wp/v2/types?context=edit
//   fields: string[],               // argument names the group edits
//   render(ctx) -> { element, value(), showErrors(params), focus(name) }
// }
// ctx: { type, record (null when creating), args (name -> JSON schema of the
// write route's arguments), api, mode: "create" | "edit", changed() }:
// call `changed()` on every user edit (the unsaved-changes guard).
// `value()` answers the request body properties of the group's fields;
// `showErrors(params)` gets `data.params` of a 400 (field -> message) and
// shows those of its fields next to them; `focus(name)` moves focus there.

const groups = [];

export function registerWidgetGroup(group) {
  groups.push(group);
}

/** The groups that apply to a post type, in registration order. */
export function widgetGroupsFor(type) {
  return groups.filter((group) => group.appliesTo(type));
}

// List options: what a plugin adds to the generated list of its post types.
// {
//   appliesTo(type) -> boolean,
//   query() -> object,              // extra query parameters of every list request
//                                   // (say, a date window wider than the route's default)
//   columns: [{ label, value(record) -> string }],   // extra columns after the title
//   filters: [{ name, label, default, choices: [{ value, label, query }] }],
//                                   // a select each in the filter form; the chosen
//                                   // choice's query is added (it wins over query());
//                                   // kept in the address as name=value unless default
// }

const listOptions = [];

export function registerListOptions(options) {
  listOptions.push(options);
}

/** The list options that apply to a post type, in registration order. */
export function listOptionsFor(type) {
  return listOptions.filter((options) => options.appliesTo(type));
}
