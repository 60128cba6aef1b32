// The geo types (`GeoPoint`, `GeoBox`, `GeoHash`, `GeoHashRange`, `GeoRegion`, `GeoMatch`) come with
// the SDK, so an app needs only `import Hearth`.
@_exported public import HearthGeo
