@_exported import CheckoutCore
