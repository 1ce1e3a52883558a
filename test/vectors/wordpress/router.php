<?php
/**
 * Router for PHP's built-in server: what Apache's WordPress .htaccess does.
 * Existing files (wp-login.php, assets) are served as they are; every other
 * path (pretty permalinks, /wp-json/...) goes to index.php, which reads
 * REQUEST_URI as under mod_rewrite.
 */
$root = rtrim( $_SERVER['DOCUMENT_ROOT'], '/' );
$path = parse_url( $_SERVER['REQUEST_URI'], PHP_URL_PATH );
if ( is_string( $path ) && $path !== '/' && is_file( $root . $path ) ) {
	return false;
}
$_SERVER['SCRIPT_NAME']     = '/index.php';
$_SERVER['PHP_SELF']        = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $root . '/index.php';
chdir( $root );
require $root . '/index.php';
