extension LocalizedStrings {
    /// A card network's name as shoppers read it (`network.VISA` is "Visa"; a network the strings do
    /// not name reads as `network.OTHER`, "Card" in en, "Karte" in de).
    public func networkName(_ network: CardNetwork?) -> String {
        text("network.\(network?.rawValue ?? CardNetwork.other.rawValue)", fallback: "network.OTHER")
    }
}
