package dev.felix.client;

/** What a subscription yields, in order: events, and gap notices for events it will never get. */
public sealed interface Item permits Event, Gap {
}
