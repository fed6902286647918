// The platform layer's generic pieces (retry backoff, ...) are part of every product module's
// vocabulary: importing CheckoutCore brings them, as it brings CheckoutJSON.
@_exported import CheckoutPlatform
