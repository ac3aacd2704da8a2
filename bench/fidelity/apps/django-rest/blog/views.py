from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import filters, viewsets

from .models import Author, Comment, Post, Tag
from .serializers import AuthorSerializer, CommentSerializer, PostSerializer, TagSerializer


class AuthorViewSet(viewsets.ModelViewSet):
    queryset = Author.objects.all()
    serializer_class = AuthorSerializer


class TagViewSet(viewsets.ModelViewSet):
    queryset = Tag.objects.all()
    serializer_class = TagSerializer


class PostViewSet(viewsets.ModelViewSet):
    queryset = Post.objects.all()
    serializer_class = PostSerializer
    filter_backends = [DjangoFilterBackend, filters.SearchFilter, filters.OrderingFilter]
    filterset_fields = ['author', 'published', 'tags']
    search_fields = ['title', 'body']
    ordering_fields = ['created_at', 'views', 'title']


class CommentViewSet(viewsets.ModelViewSet):
    queryset = Comment.objects.all()
    serializer_class = CommentSerializer
    filterset_fields = ['post']
