package io.xrpc.types;

import io.xrpc.types.Catalog.Blob;
import io.xrpc.types.Catalog.Category;
import io.xrpc.types.Catalog.Empty;
import io.xrpc.types.Catalog.Enums;
import io.xrpc.types.Catalog.Holder;
import io.xrpc.types.Catalog.Immutables;
import io.xrpc.types.Catalog.Item;
import io.xrpc.types.Catalog.Node;
import io.xrpc.types.Catalog.Numbers;
import io.xrpc.types.Catalog.Op;
import io.xrpc.types.Catalog.Optionals;
import io.xrpc.types.Catalog.Order;
import io.xrpc.types.Catalog.Page;
import io.xrpc.types.Catalog.Pair;
import io.xrpc.types.Catalog.Range;
import io.xrpc.types.Catalog.Shape;
import io.xrpc.types.Catalog.Times;
import java.math.BigDecimal;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** Each method takes one value and returns it: the provider echoes, so what arrives back went both ways. */
public interface CatalogService {
    Item item(Item v);

    Page<Item> page(Page<Item> v);

    Order order(Order v);

    Range range(Range v);

    Empty empty(Empty v);

    Times times(Times v);

    Numbers numbers(Numbers v);

    Enums enums(Enums v);

    Immutables immutables(Immutables v);

    Optionals optionals(Optionals v);

    Holder holder(Holder v);

    Blob blob(Blob v);

    Pair pair(Pair v);

    Node node(Node v);

    UUID uuid(UUID v);

    Category category(Category v);

    Op op(Op v);

    EnumMap<Category, BigDecimal> enumMap(EnumMap<Category, BigDecimal> v);

    EnumSet<Category> enumSet(EnumSet<Category> v);

    Optional<Item> optional(Optional<Item> v);

    List<Item> list(List<Item> v);

    Map<String, Item> map(Map<String, Item> v);

    Set<Category> set(Set<Category> v);

    Item[] array(Item[] v);

    Shape shape(Shape v);

    byte[] bytes(byte[] v);

    char charOf(char v);

    short shortOf(short v);

    byte byteOf(byte v);
}
