<?php
/**
 * Plugin Name: calpress reference
 * Description: The host content of calpress's generated-routes issue, registered
 *   as a WordPress plugin author would, so that WordPress's own posts and terms
 *   controllers answer for it. Installed as a must-use plugin by
 *   setup-wordpress.sh; the recorder (record.ts) sends its scenario to it.
 *
 * Only register_* calls with ordinary arguments: nothing here changes how the
 * REST API behaves, so the recorded answers are WordPress's own.
 */

add_action( 'init', function () {
	// The issue's example: a public type in the default namespace (wp/v2).
	register_post_type( 'job', array(
		'labels'       => array(
			'name'          => 'Jobs',
			'singular_name' => 'Job',
		),
		'public'       => true,
		'has_archive'  => true,
		'show_in_rest' => true,
		'rest_base'    => 'jobs',
		'supports'     => array( 'title', 'editor', 'excerpt', 'author', 'custom-fields' ),
	) );

	// Own primitive capabilities (calpress's `capabilityType`): no role has
	// them until granted (setup.php grants them to administrators only).
	register_post_type( 'gig', array(
		'labels'          => array(
			'name'          => 'Gigs',
			'singular_name' => 'Gig',
		),
		'public'          => true,
		'show_in_rest'    => true,
		'rest_base'       => 'gigs',
		'capability_type' => array( 'gig', 'gigs' ),
		'map_meta_cap'    => true,
		'supports'        => array( 'title', 'editor', 'author' ),
	) );

	// A custom namespace (rest_namespace, WordPress 5.9+).
	register_post_type( 'listing', array(
		'labels'         => array(
			'name'          => 'Listings',
			'singular_name' => 'Listing',
		),
		'public'         => true,
		'show_in_rest'   => true,
		'rest_namespace' => 'board/v1',
		'rest_base'      => 'listings',
		'supports'       => array( 'title', 'editor' ),
	) );

	register_taxonomy( 'department', array( 'job' ), array(
		'labels'       => array(
			'name'          => 'Departments',
			'singular_name' => 'Department',
		),
		'public'       => true,
		'hierarchical' => true,
		'show_in_rest' => true,
		'rest_base'    => 'departments',
	) );

	register_taxonomy( 'skill', array( 'job' ), array(
		'labels'       => array(
			'name'          => 'Skills',
			'singular_name' => 'Skill',
		),
		'public'       => true,
		'hierarchical' => false,
		'show_in_rest' => true,
		'rest_base'    => 'skills',
	) );

	// Typed fields: registered meta shown in REST (under the record's `meta`).
	register_post_meta( 'job', 'salary', array(
		'type'         => 'integer',
		'single'       => true,
		'show_in_rest' => true,
	) );
	register_post_meta( 'job', 'remote', array(
		'type'         => 'boolean',
		'single'       => true,
		'show_in_rest' => true,
	) );
	register_post_meta( 'job', 'hours', array(
		'type'         => 'number',
		'single'       => true,
		'show_in_rest' => true,
	) );
	register_post_meta( 'job', 'location', array(
		'type'         => 'string',
		'single'       => true,
		'show_in_rest' => true,
	) );
	register_post_meta( 'job', 'apply_url', array(
		'type'              => 'string',
		'single'            => true,
		'sanitize_callback' => 'esc_url_raw',
		'show_in_rest'      => array(
			'schema' => array(
				'type'   => 'string',
				'format' => 'uri',
			),
		),
	) );
	register_post_meta( 'job', 'closes', array(
		'type'         => 'string',
		'single'       => true,
		'show_in_rest' => array(
			'schema' => array(
				'type'   => 'string',
				'format' => 'date-time',
			),
		),
	) );
} );
