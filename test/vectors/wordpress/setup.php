<?php
/**
 * Installs the reference WordPress into an empty database and lays the
 * fixtures the recorder's scenario reads: users (one per role, each with an
 * application password), terms and posts with fixed dates.
 *
 * Run by setup-wordpress.sh as `php setup.php <home-url> <state.json>`; the
 * database named in /etc/wordpress/config-<host>.php must exist and be empty.
 * Writes the users' logins, application passwords and the fixtures' ids to
 * <state.json> for record.ts.
 */

if ( PHP_SAPI !== 'cli' || $argc < 3 ) {
	fwrite( STDERR, "usage: php setup.php <home-url> <state.json>\n" );
	exit( 2 );
}
$home       = rtrim( $argv[1], '/' );
$state_file = $argv[2];
$parts      = parse_url( $home );

// Debian's wp-config.php picks /etc/wordpress/config-<host>.php from HTTP_HOST.
$_SERVER['HTTP_HOST']   = $parts['host'] . ( isset( $parts['port'] ) ? ':' . $parts['port'] : '' );
$_SERVER['SERVER_NAME'] = $parts['host'];
$_SERVER['REQUEST_URI'] = '/';
define( 'WP_INSTALLING', true );

require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/user.php';

function cpr_fail( $what, $result ) {
	fwrite( STDERR, $what . ': ' . ( is_wp_error( $result ) ? $result->get_error_message() : var_export( $result, true ) ) . "\n" );
	exit( 1 );
}

if ( is_blog_installed() ) {
	cpr_fail( 'database is not empty', DB_NAME );
}

$installed = wp_install( 'calpress reference', 'admin', 'admin@example.com', true, '', 'admin-password-not-used' );
$admin_id  = (int) $installed['user_id'];

// Site settings the answers depend on.
update_option( 'siteurl', $home );
update_option( 'home', $home );
update_option( 'timezone_string', 'Europe/Rome' );
update_option( 'gmt_offset', '' );
update_option( 'date_format', 'F j, Y' );
update_option( 'time_format', 'g:i a' );
update_option( 'posts_per_page', 10 );
update_option( 'blogdescription', 'WordPress answers for calpress' );
update_option( 'fresh_site', 0 );

// WordPress's own default content goes, and the tables restart at id 1 so
// that the fixtures' ids do not depend on what wp_install() made.
global $wpdb;
foreach ( array( $wpdb->posts, $wpdb->postmeta, $wpdb->comments, $wpdb->commentmeta ) as $table ) {
	$wpdb->query( "TRUNCATE TABLE $table" );
}
update_option( 'page_on_front', 0 );
update_option( 'page_for_posts', 0 );
update_option( 'wp_page_for_privacy_policy', 0 );
update_option( 'show_on_front', 'posts' );
$wpdb->query( $wpdb->prepare( "UPDATE $wpdb->term_taxonomy SET count = 0 WHERE term_id = %d", 1 ) );

// Pretty permalinks, with the mu-plugin's types registered (init has run).
global $wp_rewrite;
$wp_rewrite->set_permalink_structure( '/%postname%/' );
flush_rewrite_rules( false );

// Users: one per role, fixed registration dates.
$people = array(
	'administrator' => array( 'admin', 'Ada', 'Admin' ),
	'editor'        => array( 'editor', 'Eddie', 'Editor' ),
	'author'        => array( 'author', 'Aurora', 'Author' ),
	'contributor'   => array( 'contributor', 'Carl', 'Contributor' ),
	'subscriber'    => array( 'subscriber', 'Sue', 'Subscriber' ),
);
$users = array();
foreach ( $people as $role => $p ) {
	list( $login, $first, $last ) = $p;
	$data = array(
		'user_login'      => $login,
		'user_email'      => $login . '@example.com',
		'first_name'      => $first,
		'last_name'       => $last,
		'display_name'    => "$first $last",
		'nickname'        => $login,
		'role'            => $role,
		'user_registered' => '2024-01-01 08:00:00',
		'description'     => "The $role of the reference site.",
		'user_url'        => "https://example.com/~$login",
	);
	if ( 'administrator' === $role ) {
		$data['ID'] = $admin_id;
		$id         = wp_update_user( $data );
	} else {
		$data['user_pass'] = wp_generate_password( 24 );
		$id                = wp_insert_user( $data );
	}
	if ( is_wp_error( $id ) ) {
		cpr_fail( "user $login", $id );
	}
	$app = WP_Application_Passwords::create_new_application_password( $id, array( 'name' => 'calpress-recorder' ) );
	if ( is_wp_error( $app ) ) {
		cpr_fail( "application password for $login", $app );
	}
	$users[ $role ] = array(
		'id'       => (int) $id,
		'login'    => $login,
		'password' => $app[0],
	);
}

// gig's own capabilities (capability_type gig/gigs): administrators only,
// as a plugin would grant them on activation.
$admin_role = get_role( 'administrator' );
foreach ( (array) get_post_type_object( 'gig' )->cap as $meta_or_primitive => $cap ) {
	if ( ! in_array( $meta_or_primitive, array( 'edit_post', 'read_post', 'delete_post', 'read' ), true ) ) {
		$admin_role->add_cap( $cap );
	}
}

wp_set_current_user( $admin_id );

// Terms (ids follow "Uncategorized", term 1).
$term_ids = array();
function cpr_term( $name, $taxonomy, $args = array() ) {
	$r = wp_insert_term( $name, $taxonomy, $args );
	if ( is_wp_error( $r ) ) {
		cpr_fail( "term $name", $r );
	}
	return (int) $r['term_id'];
}
$term_ids['engineering'] = cpr_term( 'Engineering', 'department', array( 'description' => 'Builds and runs the product.' ) );
$term_ids['backend']     = cpr_term( 'Backend', 'department', array( 'parent' => $term_ids['engineering'], 'description' => 'Servers and data.' ) );
$term_ids['frontend']    = cpr_term( 'Frontend', 'department', array( 'parent' => $term_ids['engineering'] ) );
$term_ids['sales']       = cpr_term( 'Sales', 'department', array( 'description' => 'Finds the customers.' ) );
$term_ids['legal']       = cpr_term( 'Legal', 'department' );
$term_ids['typescript']  = cpr_term( 'TypeScript', 'skill' );
$term_ids['php']         = cpr_term( 'PHP', 'skill' );
$term_ids['sql']         = cpr_term( 'SQL', 'skill' );
$term_ids['go']          = cpr_term( 'Go', 'skill', array( 'description' => 'Assigned to nothing.' ) );

// Posts, in id order. Dates are site time (Europe/Rome); date_gmt is derived
// the way WordPress does unless 'floating' (a draft whose date_gmt stays
// 0000-00-00 00:00:00).
$post_ids = array();
function cpr_post( $key, $a ) {
	global $post_ids, $term_ids, $users;
	$status = isset( $a['status'] ) ? $a['status'] : 'publish';
	$arr    = array(
		'post_type'    => isset( $a['type'] ) ? $a['type'] : 'job',
		'post_title'   => $a['title'],
		'post_content' => isset( $a['content'] ) ? $a['content'] : '',
		'post_excerpt' => isset( $a['excerpt'] ) ? $a['excerpt'] : '',
		'post_status'  => 'trash' === $status ? 'publish' : $status,
		'post_author'  => $users[ $a['author'] ]['id'],
		'post_date'    => $a['date'],
		'post_password' => isset( $a['password'] ) ? $a['password'] : '',
		'meta_input'   => isset( $a['meta'] ) ? $a['meta'] : array(),
	);
	if ( empty( $a['floating'] ) ) {
		$arr['post_date_gmt'] = get_gmt_from_date( $a['date'] );
	}
	$id = wp_insert_post( wp_slash( $arr ), true );
	if ( is_wp_error( $id ) ) {
		cpr_fail( "post $key", $id );
	}
	foreach ( array( 'department', 'skill' ) as $tax ) {
		if ( ! empty( $a[ $tax ] ) ) {
			$ids = array();
			foreach ( $a[ $tax ] as $t ) {
				$ids[] = $term_ids[ $t ];
			}
			$r = wp_set_object_terms( $id, $ids, $tax );
			if ( is_wp_error( $r ) ) {
				cpr_fail( "terms of $key", $r );
			}
		}
	}
	if ( 'trash' === $status ) {
		wp_trash_post( $id );
	}
	if ( ! empty( $a['modified'] ) ) {
		// As if edited at that time: the column wp_update_post() would set.
		global $wpdb;
		$wpdb->update( $wpdb->posts, array(
			'post_modified'     => $a['modified'],
			'post_modified_gmt' => get_gmt_from_date( $a['modified'] ),
		), array( 'ID' => $id ) );
		clean_post_cache( $id );
	}
	$post_ids[ $key ] = (int) $id;
}

cpr_post( 'backend_engineer', array(
	'title' => 'Senior Backend Engineer', 'author' => 'administrator', 'date' => '2024-01-10 09:00:00',
	'content' => "<p>Build and run the services behind our calendar.</p>\n<p>Remote within the EU.</p>",
	'excerpt' => 'Services in TypeScript and SQL.',
	'department' => array( 'backend' ), 'skill' => array( 'typescript', 'sql' ),
	'meta' => array( 'salary' => 90000, 'remote' => 1, 'hours' => 40, 'location' => 'Milan',
		'apply_url' => 'https://example.com/apply/backend', 'closes' => '2024-02-28 18:00:00' ),
) );
cpr_post( 'frontend_developer', array(
	'title' => 'Frontend Developer', 'author' => 'editor', 'date' => '2024-02-15 14:30:00',
	'modified' => '2024-09-15 10:00:00',
	'content' => '<p>Pages people enjoy using.</p>',
	'department' => array( 'frontend' ), 'skill' => array( 'typescript' ),
	'meta' => array( 'salary' => 70000, 'remote' => '', 'hours' => 37.5, 'location' => 'Rome' ),
) );
cpr_post( 'sales_lead', array(
	'title' => 'Sales Lead', 'author' => 'author', 'date' => '2024-03-20 10:00:00',
	'content' => '<p>Lead a small team that sells calendars.</p>',
	'department' => array( 'sales' ),
	'meta' => array( 'salary' => 60000, 'location' => 'Turin' ),
) );
// A draft without date_gmt (floating). Its modified_gmt is set too: left at
// 0000-00-00 WordPress would answer it from today's UTC offset, so the
// recording would change with the season.
cpr_post( 'php_maintainer', array(
	'title' => 'PHP Maintainer', 'author' => 'author', 'date' => '2024-04-01 08:00:00', 'status' => 'draft',
	'floating' => true, 'modified' => '2024-04-01 08:00:00', 'content' => '<p>Keep the legacy plugin alive.</p>',
	'department' => array( 'backend' ), 'skill' => array( 'php' ),
) );
cpr_post( 'internal_auditor', array(
	'title' => 'Internal Auditor', 'author' => 'administrator', 'date' => '2024-04-05 12:00:00', 'status' => 'private',
	'content' => '<p>Not advertised.</p>', 'department' => array( 'legal' ),
) );
cpr_post( 'protected_posting', array(
	'title' => 'Protected Posting', 'author' => 'administrator', 'date' => '2024-05-01 11:00:00',
	'password' => 'opensesame', 'content' => '<p>Only for those who know the word.</p>',
	'excerpt' => 'A secret excerpt.', 'department' => array( 'engineering' ),
	'meta' => array( 'salary' => 123456, 'location' => 'Hidden' ),
) );
cpr_post( 'contributor_pending', array(
	'title' => 'Contributor Pending Idea', 'author' => 'contributor', 'date' => '2024-05-10 16:00:00', 'status' => 'pending',
	'content' => '<p>Waiting for review.</p>', 'department' => array( 'frontend' ),
) );
cpr_post( 'future_architect', array(
	'title' => 'Future Architect', 'author' => 'editor', 'date' => '2099-06-01 09:00:00', 'status' => 'future',
	'content' => '<p>Scheduled far ahead.</p>', 'department' => array( 'backend' ),
) );
cpr_post( 'trashed_opening', array(
	'title' => 'Trashed Opening', 'author' => 'administrator', 'date' => '2023-12-01 09:00:00', 'status' => 'trash',
	'modified' => '2023-12-15 10:00:00',
	'content' => '<p>No longer open.</p>', 'department' => array( 'sales' ),
) );
cpr_post( 'data_analyst', array(
	'title' => 'Data Analyst', 'author' => 'editor', 'date' => '2024-06-03 09:15:00',
	'content' => '<p>Numbers, queries and charts.</p>', 'excerpt' => 'SQL every day.',
	'department' => array( 'backend' ), 'skill' => array( 'sql' ),
	'meta' => array( 'salary' => 55000, 'remote' => 1, 'location' => 'Milan' ),
) );
cpr_post( 'devops_engineer', array(
	'title' => 'DevOps Engineer', 'author' => 'administrator', 'date' => '2024-06-20 17:45:00',
	'modified' => '2024-12-01 09:00:00',
	'content' => '<p>Pipelines, servers and the pager.</p>',
	'department' => array( 'engineering' ), 'skill' => array( 'typescript' ),
) );
cpr_post( 'qa_engineer', array(
	'title' => 'QA Engineer', 'author' => 'author', 'date' => '2024-07-08 08:00:00',
	'content' => '<p>Break things before users do.</p>',
	'department' => array( 'frontend' ), 'skill' => array( 'typescript' ),
) );
cpr_post( 'account_executive', array(
	'title' => 'Account Executive', 'author' => 'editor', 'date' => '2024-08-19 13:00:00',
	'content' => '<p>Close deals with engineering teams.</p>', 'department' => array( 'sales' ),
) );
cpr_post( 'support_engineer', array(
	'title' => 'Support Engineer', 'author' => 'author', 'date' => '2024-09-02 09:30:00',
	'content' => '<p>Help customers run the calendar.</p>',
	'department' => array( 'engineering' ), 'skill' => array( 'php' ),
	'meta' => array( 'remote' => 1 ),
) );
cpr_post( 'product_manager', array(
	// 02:30 happens twice in Rome on that night (the end of summer time).
	'title' => 'Product Manager', 'author' => 'administrator', 'date' => '2024-10-27 02:30:00',
	'content' => '<p>Decide what we build next.</p>',
) );
cpr_post( 'designer', array(
	'title' => 'Designer', 'author' => 'editor', 'date' => '2024-11-11 11:11:00',
	'content' => '<p>Make it clear.</p>', 'department' => array( 'frontend' ),
) );
cpr_post( 'night_operator', array(
	// 00:30 local on New Year's day is 23:30 UTC the day before.
	'title' => 'Night Shift Operator', 'author' => 'administrator', 'date' => '2025-01-01 00:30:00',
	'content' => '<p>Keep the lights on overnight.</p>', 'department' => array( 'engineering' ),
) );
cpr_post( 'regular_post', array(
	'type' => 'post', 'title' => 'A regular post', 'author' => 'administrator', 'date' => '2024-01-05 10:00:00',
	'content' => '<p>Not a job.</p>',
) );
cpr_post( 'weekend_gig', array(
	'type' => 'gig', 'title' => 'Weekend Gig', 'author' => 'administrator', 'date' => '2024-02-02 10:00:00',
	'content' => '<p>Saturday only.</p>',
) );
cpr_post( 'first_listing', array(
	'type' => 'listing', 'title' => 'First Listing', 'author' => 'administrator', 'date' => '2024-02-03 10:00:00',
	'content' => '<p>In a namespace of its own.</p>',
) );

$state = array(
	'home'        => $home,
	'wordpress'   => $GLOBALS['wp_version'],
	'php'         => PHP_VERSION,
	'mysql'       => $wpdb->db_version(),
	'db'          => DB_NAME,
	'timezone'    => get_option( 'timezone_string' ),
	'users'       => $users,
	'terms'       => $term_ids,
	'posts'       => $post_ids,
	'uncategorized' => 1,
);
file_put_contents( $state_file, json_encode( $state, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES ) . "\n" );
echo "installed WordPress {$GLOBALS['wp_version']} at $home\n";
